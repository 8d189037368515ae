// `wfs` writing to the database of a server that is busy writing too (contract: operator side: the
// commands act on DATABASE_URL "also while the server runs"). A server process takes revenue batches
// in a loop while `wfs import` (3,000 shifts) and `wfs seed-demo` run as processes of their own on
// the same database: every command and every batch must succeed. On SQLite the two processes share
// one write lock; a transaction that read first and took the lock only at its first write failed at
// once ("database is locked") whenever the other process had committed in between. And a write that
// waits for the other process's lock must not hold the server's event loop meanwhile.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { signedInCompany } from '../support/company.ts';
import { companyOfSize } from '../support/import-bodies.ts';
import { startInstance, type Instance } from '../support/processes.ts';
import { openSharedDatabase, type SharedDatabase } from '../support/shared-database.ts';
import { testDialect } from '../support/database.ts';
import { api } from '../multi-instance/client.ts';
import { baseDocument } from '../company/fixtures.ts';
import { wfsProcessJson } from './wfs.ts';

const SHIFTS = 3_000;

let shared: SharedDatabase;
let server: Instance;
let token: string;
let companyId: string;
let departmentId: string;
let dir: string;

before(async () => {
  shared = await openSharedDatabase({ env: { RATE_LIMIT_API_PER_MINUTE: '1000000' } });
  let tenant;
  ({ token, tenant } = await signedInCompany(shared.ctx, { data: baseDocument() }));
  companyId = tenant.companyId;
  server = await startInstance({ port: shared.ports[0], env: shared.env });
  const configuration = (await (await api(server.url, token, '/api/v1/company/configuration')).json()) as { departments: Array<{ id: string }> };
  departmentId = configuration.departments[0]?.id ?? '';
  dir = mkdtempSync(join(tmpdir(), 'wfs-beside-'));
});
after(async () => {
  await server?.stop();
  await shared?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A document of SHIFTS shifts (and their employees), in a file. */
function importFile(): string {
  const body = companyOfSize(1_000_000);
  const shifts = (JSON.parse(body.toString('utf8')) as { shifts: unknown[] }).shifts.slice(0, SHIFTS);
  const file = join(dir, 'big.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(body.toString('utf8')), shifts }));
  return file;
}

/**
 * Revenue batches sent by three clients, one after another each, until `done` settles; returns every
 * answer's status and body. Each batch writes ten days of its own: every one is a write.
 */
async function writeUntil(done: Promise<unknown>): Promise<Array<{ status: number; body: string }>> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => {});
  const answers: Array<{ status: number; body: string }> = [];
  let batch = 0;
  await Promise.all([0, 1, 2].map(async () => {
    while (!finished) {
      const day = batch++;
      const items = Array.from({ length: 10 }, (_, i) => ({ departmentId, date: new Date(Date.UTC(2020, 0, 1) + (day * 10 + i) * 86_400_000).toISOString().slice(0, 10), kind: 'realised', amount: day }));
      const response = await api(server.url, token, '/api/v1/company/revenue', { method: 'POST', body: { items } });
      answers.push({ status: response.status, body: await response.text() });
    }
  }));
  return answers;
}

function assertAllStored(answers: Array<{ status: number; body: string }>): void {
  assert.ok(answers.length > 0, 'the server took writes meanwhile');
  const refused = answers.filter((a) => a.status !== 200);
  assert.equal(refused.length, 0, `${refused.length} of ${answers.length} batches refused, e.g. ${refused[0]?.status} ${refused[0]?.body}`);
}

test(`wfs import of ${SHIFTS} shifts succeeds while the server takes writes on the same database`, async () => {
  const file = importFile();
  const imported = wfsProcessJson(shared.database.url, ['import', '--company', companyId, file]);
  const [counts, answers] = await Promise.all([imported, writeUntil(imported)]);
  assert.equal((counts as { shifts: { created: number } }).shifts.created, SHIFTS);
  assertAllStored(answers);
});

test('wfs seed-demo succeeds while the server takes writes on the same database', async () => {
  for (let run = 0; run < 3; run++) {
    const seeded = wfsProcessJson(shared.database.url, ['seed-demo', '--seed', String(run + 1)]);
    const [demo, answers] = await Promise.all([seeded, writeUntil(seeded)]);
    assert.ok((demo as { companyId?: string }).companyId);
    assertAllStored(answers);
  }
});

test('a write waiting for another process\'s SQLite lock leaves the server answering meanwhile', { skip: testDialect !== 'sqlite' && 'SQLite only' }, async () => {
  const other = new DatabaseSync(shared.database.url.slice('sqlite:'.length));
  other.exec('BEGIN IMMEDIATE');
  // Held for 1.5 s, well within the 5 s a write waits for the lock.
  const released = sleep(1_500).then(() => {
    other.exec('ROLLBACK');
    other.close();
  });
  const waiting = writeUntil(sleep(1));
  await sleep(200);
  // The batches above now wait for the lock; the process must go on answering other requests.
  const health: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await (await fetch(`${server.url}/healthz`)).text();
    health.push(performance.now() - started);
    await sleep(100);
  }
  await released;
  assertAllStored(await waiting);
  assert.ok(Math.max(...health) < 250, `/healthz answered in ${health.map(Math.round).join(', ')} ms while writes waited for the lock`);
});
