// The bench in a tiny mode (npm run bench is no test: these check that its code works, in seconds):
// the bench-only build without the change log really leaves the change log out and nothing else,
// and a short run of the rows measured by the bench's own clients yields figures with their cost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { testDialect } from '../support/database.ts';
import { freshBenchDatabase } from '../../bench/databases.ts';
import { BENCH_BASE_URL, closeContext, openBenchContext, provisionBenchTenant } from '../../bench/tenant.ts';
import { loadCompany } from '../../bench/company.ts';
import { startService } from '../../bench/processes.ts';
import { JsonClient } from '../../bench/client.ts';

const POSTGRES_URL = process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN = new URL('../../bench/run.ts', import.meta.url).pathname;

test('the bench-only build without the change log stores a timeclock event and logs no change for it', async () => {
  const database = await freshBenchDatabase(testDialect, POSTGRES_URL);
  const ctx = await openBenchContext(database.url);
  try {
    const tenant = await provisionBenchTenant(ctx);
    await loadCompany(ctx, tenant.companyId, { employees: 2, shiftsPerDay: 2, days: 1 });
    const [person] = await ctx.db.selectFrom('employees').select('id').where('company_id', '=', tenant.companyId).execute();
    const service = await startService({ databaseUrl: database.url, baseUrl: BENCH_BASE_URL, logLevel: 'warn', nodeOptions: '', withoutChangeLog: true }, 1);
    const client = new JsonClient(service.urls[0]!, 1, { authorization: `Bearer ${tenant.idToken}` });
    try {
      const event = { eventId: randomUUID(), userId: person!.id, type: 'clock_in', occurredAt: new Date(Date.now() - 60_000).toISOString(), source: 'api' };
      const answer = await client.send('POST', '/api/v1/timeclock/events', event);
      assert.equal(answer.status, 200, answer.body);
    } finally {
      client.close();
      await service.stop();
    }
    assert.equal((await ctx.db.selectFrom('timeclock_events').select('id').execute()).length, 1);
    // The import's changes are logged as ever; the event's is not.
    assert.ok((await ctx.db.selectFrom('company_changes').select('seq').execute()).length > 0);
    assert.deepEqual(await ctx.db.selectFrom('company_changes').select('seq').where('type', '=', 'timeclock_event.created').execute(), []);
  } finally {
    await closeContext(ctx);
    await database.drop();
  }
});

test('a tiny run measures timeclock (with and without the change log), delta reads and webhook deliveries, each with CPU, RSS and loop p99', async () => {
  const args = ['--short', '--only', 'timeclock,changes,webhooks', '--db', testDialect, '--duration', '0.4', '--warmup', '0.2', '--employees', '50', '--shifts-per-day', '50',
    '--people', '20', '--concurrency', '4', '--webhook-changes', '50'];
  const { stdout } = await promisify(execFile)(process.execPath, [RUN, ...args], { env: { ...process.env, WFS_TEST_POSTGRES_URL: POSTGRES_URL }, maxBuffer: 4 * 1024 * 1024 });
  const row = (label: string) => stdout.split('\n').find((line) => line.startsWith(`| ${label}`)) ?? assert.fail(`no row ${label} in\n${stdout}`);
  const cost = testDialect === 'postgres' ? / · service CPU \d+ % · PostgreSQL CPU \d+ % · RSS \d+ MiB · loop p99 [\d.]+ ms/ : / · service CPU \d+ % · RSS \d+ MiB · loop p99 [\d.]+ ms/;
  for (const label of ['POST /timeclock/events, 500 people', 'POST /timeclock/events, the same without', 'GET /company/changes', 'webhook deliveries']) {
    assert.match(row(label), cost, label);
    assert.doesNotMatch(row(label), /n\/a|failed/, label);
  }
  assert.match(row('POST /timeclock/events, the same without'), /the change log costs -?[\d.]+ %/);
  assert.match(row('webhook deliveries'), /[\d,]+ deliveries\/s/);
});
