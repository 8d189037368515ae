import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { useCompanyServer } from '../support/company.ts';
import { addEmployee } from './fixtures.ts';
import { postJson, type ProblemBody } from '../support/http.ts';

interface StoredEvent {
  id: string;
  userId: string;
  sequence: number;
  occurredAt: string;
}

const company = useCompanyServer({ inProcess: true });
const url = () => `${company.server.baseUrl}/api/v1/timeclock/events`;

const hourAgo = () => Date.now() - 3_600_000;

async function storedFor(employeeId: string) {
  return company.server.ctx.db.selectFrom('timeclock_events').select(['sequence', 'occurred_at', 'event_id']).where('employee_id', '=', employeeId).orderBy('sequence').execute();
}

test('40 parallel copies of one event store exactly one and all answer it', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const event = { eventId: randomUUID(), badgeId: person.badgeId, type: 'clock_in', occurredAt: new Date(hourAgo()).toISOString(), source: 'terminal' };
  const answers = await Promise.all(Array.from({ length: 40 }, () => postJson<StoredEvent>(url(), company.token, event)));
  assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
  assert.equal(new Set(answers.map((a) => JSON.stringify(a.body))).size, 1, 'every copy gets the same stored event');
  assert.equal(answers[0]?.body.sequence, 1);
  assert.equal((await storedFor(person.id)).length, 1);
});

test('40 people punching in parallel are all accepted', async () => {
  const people = await Promise.all(Array.from({ length: 40 }, () => addEmployee(company.server.ctx.db, company.tenant)));
  const at = new Date(hourAgo()).toISOString();
  const answers = await Promise.all(people.map((person) => postJson<StoredEvent>(url(), company.token, { eventId: randomUUID(), userId: person.id, type: 'clock_in', occurredAt: at, source: 'terminal' })));
  assert.deepEqual(answers.map((a) => a.status), people.map(() => 200));
  assert.deepEqual(answers.map((a) => [a.body.userId, a.body.sequence]), people.map((p) => [p.id, 1]));
});

test('20 parallel events for one person: only 200/409, and a gapless, strictly increasing stream', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const start = hourAgo();
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      postJson<StoredEvent & ProblemBody>(url(), company.token, { eventId: randomUUID(), badgeId: person.badgeId, type: i % 2 === 0 ? 'clock_in' : 'clock_out', occurredAt: new Date(start + i * 60_000).toISOString(), source: 'terminal' }),
    ),
  );
  assert.deepEqual([...new Set(answers.map((a) => a.status))].filter((s) => s !== 200 && s !== 409), []);
  for (const refused of answers.filter((a) => a.status === 409)) assert.equal(refused.body.code, 'out_of_order');
  const accepted = answers.filter((a) => a.status === 200);
  assert.ok(accepted.length >= 1);

  const rows = await storedFor(person.id);
  assert.equal(rows.length, accepted.length);
  assert.deepEqual(rows.map((r) => r.sequence), rows.map((_, i) => i + 1), 'gapless from 1');
  for (let i = 1; i < rows.length; i += 1) assert.ok(Number(rows[i]?.occurred_at) > Number(rows[i - 1]?.occurred_at), 'strictly increasing occurredAt');
  assert.deepEqual(accepted.map((a) => a.body.sequence).sort((a, b) => a - b), rows.map((r) => r.sequence));
});
