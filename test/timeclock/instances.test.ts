import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { migratedDatabase, type FreshDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import type { Tenant } from '../support/tenants.ts';
import { addEmployee } from './fixtures.ts';
import { postJson, type ProblemBody } from '../support/http.ts';

// Two instances over one database, each with its own connections: the per-person serialisation
// must come from the database, not from anything inside one process.
let database: FreshDatabase;
let instances: TestServer[];
let tenant: Tenant;
let token: string;

before(async () => {
  database = await migratedDatabase();
  // One public address (the issuer of the tokens) in front of both, as behind a load balancer.
  const shared = { DATABASE_URL: database.url, BASE_URL: 'https://wfs.example.com' };
  instances = [await startTestServer(shared), await startTestServer(shared)];
  const first = instances[0] as TestServer;
  ({ tenant, token } = await signedInCompany(first.ctx));
});
after(async () => {
  for (const instance of instances) await instance.close();
  await database.drop();
});

const urlOf = (i: number) => `http://127.0.0.1:${instances[i % 2]?.config.port ?? 0}/api/v1/timeclock/events`;

test('copies of one event sent to both instances at once are stored once', async () => {
  const person = await addEmployee(instances[0]!.ctx.db, tenant);
  const event = { eventId: randomUUID(), userId: person.id, type: 'clock_in', occurredAt: new Date(Date.now() - 60_000).toISOString(), source: 'terminal' };
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => postJson<{ id: string; sequence: number }>(urlOf(i), token, event)));
  assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
  assert.equal(new Set(answers.map((a) => a.body.id)).size, 1);
});

test('one person\'s events spread over both instances keep a gapless, increasing sequence', async () => {
  const person = await addEmployee(instances[0]!.ctx.db, tenant);
  const start = Date.now() - 3_600_000;
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      postJson<{ sequence: number } & ProblemBody>(urlOf(i), token, { eventId: randomUUID(), badgeId: person.badgeId, type: 'clock_in', occurredAt: new Date(start + i * 1000).toISOString(), source: 'terminal' }),
    ),
  );
  assert.deepEqual([...new Set(answers.map((a) => a.status))].filter((s) => s !== 200 && s !== 409), []);
  const rows = await instances[1]!.ctx.db.selectFrom('timeclock_events').select(['sequence', 'occurred_at']).where('employee_id', '=', person.id).orderBy('sequence').execute();
  assert.equal(rows.length, answers.filter((a) => a.status === 200).length);
  assert.deepEqual(rows.map((r) => r.sequence), rows.map((_, i) => i + 1));
  for (let i = 1; i < rows.length; i += 1) assert.ok(Number(rows[i]?.occurred_at) > Number(rows[i - 1]?.occurred_at));
});
