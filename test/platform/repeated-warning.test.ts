// A dependency that fails on every request (Redis down under the rate limits) must not write a log
// line per request: the first failure is logged, later ones at most once a minute with the count of
// those left out.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ManualClock } from '../../src/platform/clock.ts';
import { REPEATED_WARNING_INTERVAL_MS, repeatedWarning } from '../../src/platform/repeated-warning.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { mintTokens, provisionTenant } from '../support/tenants.ts';
import { postToken } from '../iam/helpers.ts';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';

function capturedWarnings(): { warn: (fields: object, message: string) => void; lines: Array<{ fields: Record<string, unknown>; message: string }> } {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  return { lines, warn: (fields, message) => lines.push({ fields: fields as Record<string, unknown>, message }) };
}

test('the first failure is logged at once; the next ones within the interval only counted, then reported with the count', () => {
  const clock = new ManualClock();
  const log = capturedWarnings();
  const failed = repeatedWarning(log, 'store unavailable', clock);
  const first = new Error('connection refused');
  failed(first);
  for (let i = 0; i < 999; i++) failed(new Error('again'));
  assert.deepEqual(log.lines, [{ fields: { err: first, leftOut: 0 }, message: 'store unavailable' }]);

  clock.advance(REPEATED_WARNING_INTERVAL_MS);
  failed(new Error('still down'));
  assert.equal(log.lines.length, 2);
  assert.deepEqual([log.lines[1]?.fields.leftOut, log.lines[1]?.message], [999, 'store unavailable']);
  failed(new Error('within the next interval'));
  assert.equal(log.lines.length, 2);
});

const lines: string[] = [];
const stream = new PassThrough();
stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
// Port 9 (discard) has no Redis: every count fails, and the limits fail open. Started in a hook, not by
// a top-level await: under `npm test` (scripts/test-together.ts) a test registered after such an await
// is cancelled ("did not finish before its parent").
let server: TestServer;
before(async () => {
  server = await startTestServer({ LOG_LEVEL: 'info', REDIS_URL: 'redis://127.0.0.1:9' }, { logStream: stream, inProcess: true });
});
after(() => server.close());

test('with Redis unreachable, twenty token requests and twenty API reads answer and leave one warning per limit, not one per request', async () => {
  const tenant = await provisionTenant(server.ctx);
  await setGrantEnabled(server.ctx.db, tenant.clientId, 'client_credentials', true);
  for (let i = 0; i < 20; i++) {
    const answer = await postToken(server, { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret });
    assert.equal(answer.status, 200, await answer.text());
  }
  const { id_token: idToken } = await mintTokens(server.ctx, tenant);
  for (let i = 0; i < 20; i++) {
    const answer = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: { authorization: `Bearer ${idToken}` } });
    assert.equal(answer.status, 200, await answer.text());
  }
  const warnings = lines.map((line) => JSON.parse(line) as { msg: string }).filter((entry) => entry.msg.startsWith('rate-limit store unavailable'));
  assert.deepEqual(warnings.map((entry) => entry.msg), ['rate-limit store unavailable; identity limits not applied', 'rate-limit store unavailable; API limit not applied']);
});
