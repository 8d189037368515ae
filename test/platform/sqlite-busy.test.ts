// Two instances on one SQLite file share its write lock. When the other one holds it past
// busy_timeout (5 s), the write fails with SQLITE_BUSY: that is the database being briefly
// unavailable — 503 with Retry-After, which a client retries — not a fault of ours (500).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { migratedDatabase, testDialect, type FreshDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { postJson, type ProblemBody } from '../support/http.ts';
import { addEmployee } from '../timeclock/fixtures.ts';

const sqliteOnly = testDialect !== 'sqlite' && 'SQLite only';
let database: FreshDatabase;
let server: TestServer;

before(async () => {
  if (sqliteOnly) return;
  database = await migratedDatabase();
  server = await startTestServer({ DATABASE_URL: database.url });
});
after(async () => {
  if (sqliteOnly) return;
  await server.close();
  await database.drop();
});

test('a write that waits past busy_timeout for another connection\'s lock answers 503 database_unavailable with Retry-After', { skip: sqliteOnly }, async () => {
  const { tenant, token } = await signedInCompany(server.ctx);
  const person = await addEmployee(server.ctx.db, tenant);
  const event = (minutesAgo: number) => ({ eventId: randomUUID(), userId: person.id, type: 'clock_in', occurredAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(), source: 'terminal' });
  const url = `${server.baseUrl}/api/v1/timeclock/events`;

  const otherInstance = new DatabaseSync(database.url.slice('sqlite:'.length));
  otherInstance.exec('BEGIN IMMEDIATE');
  let locked;
  try {
    locked = await postJson<ProblemBody>(url, token, event(2));
  } finally {
    otherInstance.exec('ROLLBACK');
    otherInstance.close();
  }
  assert.equal(locked.status, 503);
  assert.equal(locked.body.code, 'database_unavailable');
  assert.equal(locked.headers.get('retry-after'), '1');

  const retried = await postJson<{ sequence: number }>(url, token, event(1));
  assert.equal(retried.status, 200, 'once the lock is released, the next write goes through');
  assert.equal(retried.body.sequence, 1, 'the refused write stored nothing');
});
