// The storage of events (src/timeclock/store.ts): appends that arrive together are stored together —
// on PostgreSQL in one statement, on SQLite in one grouped commit — and each keeps its own outcome:
// a lost race answers false without failing the group, and an event the database refuses fails
// alone. Each stored event has its change-log entry; a refused one has none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { useCompanyServer } from '../support/company.ts';
import { addEmployee } from './fixtures.ts';
import { newId } from '../../src/platform/ids.ts';
import { appendEvent, findPerson, type Append } from '../../src/timeclock/store.ts';
import { presentEvent } from '../../src/timeclock/events.ts';
import type { TimeclockEventsTable } from '../../src/timeclock/tables.ts';

const company = useCompanyServer({ timezone: 'Europe/Amsterdam' });
const db = () => company.server.ctx.db;

function append(person: { id: string; companyId: string }, sequence = 1): Append {
  const now = Date.now();
  const event: TimeclockEventsTable = {
    id: newId('tce'),
    organisation_id: company.tenant.organisationId,
    company_id: person.companyId,
    employee_id: person.id,
    event_id: randomUUID(),
    content_hash: 'hash',
    sequence,
    type: 'clock_in',
    occurred_at: now - 60_000,
    received_at: now,
    source: 'api',
    badge_id: null,
    device_id: null,
    location: null,
    anomaly: null,
    state_after: 'working',
  };
  return { event, stored: presentEvent(event, 'Europe/Amsterdam'), timezone: 'Europe/Amsterdam' };
}

async function loggedIds(): Promise<string[]> {
  const rows = await db().selectFrom('company_changes').select('resource_id').where('type', '=', 'timeclock_event.created').execute();
  return rows.map((row) => row.resource_id);
}

test('appends sent together are each stored with their change; two claiming one sequence: one is stored, the other answers false', async () => {
  const people = await Promise.all(Array.from({ length: 5 }, () => addEmployee(db(), company.tenant)));
  const winner = append(people[0]!);
  const rival = append(people[0]!);
  const others = people.slice(1).map((person) => append(person));
  const outcomes = await Promise.all([winner, rival, ...others].map((item) => appendEvent(db(), item)));
  assert.deepEqual(outcomes, [true, false, true, true, true, true]);
  const logged = new Set(await loggedIds());
  for (const item of [winner, ...others]) assert.ok(logged.has(item.event.id), 'a stored event has its change');
  assert.ok(!logged.has(rival.event.id), 'the loser logs nothing');
  const person = await findPerson(db(), company.tenant.organisationId, { eventId: randomUUID(), userId: people[0]!.id, type: 'clock_out', occurredAt: '', source: 'api' });
  assert.equal(person.lastSequence, 1);
});

test('an event the database refuses fails alone: its neighbours in the group are stored', async () => {
  const people = await Promise.all(Array.from({ length: 3 }, () => addEmployee(db(), company.tenant)));
  const good = people.map((person) => append(person));
  const refused = append({ id: newId('emp'), companyId: 'cmp_does_not_exist' });
  const outcomes = await Promise.allSettled([good[0]!, refused, good[1]!, good[2]!].map((item) => appendEvent(db(), item)));
  assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  const logged = new Set(await loggedIds());
  for (const item of good) assert.ok(logged.has(item.event.id));
  assert.ok(!logged.has(refused.event.id));
  const stored = await db().selectFrom('timeclock_events').select('id').where('id', '=', refused.event.id).execute();
  assert.deepEqual(stored, []);
});
