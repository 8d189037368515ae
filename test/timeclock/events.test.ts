import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { useCompanyServer } from '../support/company.ts';
import { provisionTenant } from '../support/tenants.ts';
import { addEmployee, type Employee } from './fixtures.ts';
import { getJson, postJson, type Page, type ProblemBody } from '../support/http.ts';
import { parseOccurredAt } from '../../src/timeclock/events.ts';
import { ProblemError } from '../../src/platform/errors.ts';

interface StoredEvent {
  id: string;
  eventId: string;
  userId: string;
  badgeId: string | null;
  companyId: string;
  type: string;
  occurredAt: string;
  source: string;
  deviceId: string | null;
  location: { latitude: number; longitude: number } | null;
  sequence: number;
  receivedAt: string;
  anomaly: string | null;
  updatedAt: string;
}

const company = useCompanyServer({ name: 'Hotel', timezone: 'Europe/Amsterdam', inProcess: true });
const url = () => `${company.server.baseUrl}/api/v1/timeclock/events`;

/** Yesterday (Amsterdam) at hh:mm, as UTC ISO text. */
function yesterdayAt(time: string): string {
  const [hour, minute] = time.split(':').map(Number);
  return DateTime.now().setZone('Europe/Amsterdam').minus({ days: 1 }).set({ hour, minute, second: 0, millisecond: 0 }).toUTC().toISO() ?? '';
}

function punch(person: Employee, type: string, occurredAt: string, extra: Record<string, unknown> = {}) {
  return postJson<StoredEvent & ProblemBody>(url(), company.token, { eventId: randomUUID(), badgeId: person.badgeId, type, occurredAt, source: 'terminal', ...extra });
}

test('a full day — in, break, back, out — is stored in order with sequence 1..4 and no anomaly', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const day = [['clock_in', '08:00'], ['break_start', '12:00'], ['break_end', '12:30'], ['clock_out', '17:00']] as const;
  const stored: StoredEvent[] = [];
  for (const [type, time] of day) {
    const eventId = randomUUID();
    const response = await postJson<StoredEvent>(url(), company.token, { eventId, badgeId: person.badgeId, type, occurredAt: yesterdayAt(time), source: 'terminal', deviceId: 'T-1', location: { latitude: 52.37, longitude: 4.89 } });
    assert.equal(response.status, 200);
    const { id, receivedAt, updatedAt, occurredAt, ...rest } = response.body;
    assert.ok(id);
    assert.equal(updatedAt, receivedAt);
    assert.match(receivedAt, /[+-]\d{2}:\d{2}$/);
    assert.equal(DateTime.fromISO(occurredAt).toMillis(), DateTime.fromISO(yesterdayAt(time)).toMillis());
    // Written in the company's offset (CET/CEST), whatever offset it was sent with.
    assert.match(occurredAt, new RegExp(`T${time}:00\\+0[12]:00$`));
    assert.deepEqual(rest, { eventId, userId: person.id, badgeId: person.badgeId, companyId: company.tenant.companyId, type, source: 'terminal', deviceId: 'T-1', location: { latitude: 52.37, longitude: 4.89 }, sequence: stored.length + 1, anomaly: null });
    stored.push(response.body);
  }

  const yesterday = DateTime.now().setZone('Europe/Amsterdam').minus({ days: 1 }).toISODate();
  const readBack = await getJson<Page<StoredEvent>>(`${url()}?from=${yesterday}&to=${yesterday}&userId=${person.id}`, company.token);
  assert.equal(readBack.status, 200);
  assert.deepEqual(readBack.body, { data: stored, nextCursor: null });
  const paged = await getJson<Page<StoredEvent>>(`${url()}?from=${yesterday}&userId=${person.id}&limit=3`, company.token);
  assert.deepEqual(paged.body.data.map((e) => e.sequence), [1, 2, 3]);
  const rest = await getJson<Page<StoredEvent>>(`${url()}?from=${yesterday}&userId=${person.id}&limit=3&cursor=${encodeURIComponent(paged.body.nextCursor ?? '')}`, company.token);
  assert.deepEqual(rest.body, { data: [stored[3]], nextCursor: null });
});

test('an event not later than the last accepted one is 409 out_of_order and not stored', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  assert.equal((await punch(person, 'clock_in', yesterdayAt('09:00'))).status, 200);
  for (const time of ['08:59', '09:00']) {
    const late = await punch(person, 'clock_out', yesterdayAt(time));
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'out_of_order');
    const lastAccepted = DateTime.fromISO(yesterdayAt('09:00')).setZone('Europe/Amsterdam').toISO({ suppressMilliseconds: true }) ?? '';
    assert.ok((late.body as { detail?: string }).detail?.includes(`(${lastAccepted})`), `the last accepted event in the company's offset: ${JSON.stringify(late.body)}`);
  }
  const next = await punch(person, 'clock_out', yesterdayAt('17:00'));
  assert.equal(next.status, 200);
  assert.equal(next.body.sequence, 2, 'refused events take no sequence number');
});

test('replaying an event returns the original 200 and stores nothing; other content under its eventId is 409', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const event = { eventId: randomUUID(), userId: person.id, type: 'clock_in', occurredAt: yesterdayAt('07:00'), source: 'mobile' };
  const first = await postJson<StoredEvent>(url(), company.token, event);
  assert.equal(first.status, 200);
  assert.equal((await punch(person, 'clock_out', yesterdayAt('15:00'))).status, 200);

  // Idempotency comes first: the older event replayed unchanged is not out of order.
  const replay = await postJson<StoredEvent>(url(), company.token, { ...event, occurredAt: DateTime.fromISO(event.occurredAt).setZone('UTC+05:00').toISO() });
  assert.equal(replay.status, 200);
  assert.deepEqual(replay.body, first.body);
  const replayUpper = await postJson<StoredEvent>(url(), company.token, { ...event, eventId: event.eventId.toUpperCase() });
  assert.deepEqual(replayUpper.body, first.body);

  for (const changed of [{ type: 'clock_out' }, { occurredAt: yesterdayAt('07:01') }, { source: 'web' }, { deviceId: 'x' }]) {
    const conflicting = await postJson<ProblemBody>(url(), company.token, { ...event, ...changed });
    assert.equal(conflicting.status, 409, JSON.stringify(changed));
    assert.equal(conflicting.body.code, 'event_id_conflict');
  }
  const count = await company.server.ctx.db.selectFrom('timeclock_events').select((eb) => eb.fn.countAll().as('n')).where('employee_id', '=', person.id).executeTakeFirstOrThrow();
  assert.equal(Number(count.n), 2);
});

test('punches that make no sense are stored and flagged', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const sequence = [
    ['clock_out', '06:00', 'missing_clock_in'],
    ['break_end', '06:10', 'break_end_without_break_start'],
    ['clock_in', '06:20', 'already_clocked_in'],
    ['break_start', '07:00', null],
    ['break_start', '07:10', 'already_on_break'],
    ['clock_out', '08:00', 'clock_out_during_break'],
    ['break_start', '09:00', 'break_without_clock_in'],
    ['clock_in', '09:30', 'already_clocked_in'],
    ['clock_out', '10:00', null],
  ] as const;
  for (const [index, [type, time, anomaly]] of sequence.entries()) {
    const response = await punch(person, type, yesterdayAt(time));
    assert.equal(response.status, 200);
    assert.equal(response.body.anomaly, anomaly, `${type} at ${time}`);
    assert.equal(response.body.sequence, index + 1);
  }
});

test('unknown badge or user is 404; an inactive timeclock 409; a future event 400', async () => {
  const unknownBadge = await postJson<ProblemBody>(url(), company.token, { eventId: randomUUID(), badgeId: 'NO-SUCH-BADGE', type: 'clock_in', occurredAt: yesterdayAt('08:00'), source: 'terminal' });
  assert.equal(unknownBadge.status, 404);
  assert.equal(unknownBadge.body.code, 'not_found');
  const unknownUser = await postJson<ProblemBody>(url(), company.token, { eventId: randomUUID(), userId: 'emp_nobody', type: 'clock_in', occurredAt: yesterdayAt('08:00'), source: 'api' });
  assert.equal(unknownUser.status, 404);

  const inactive = await addEmployee(company.server.ctx.db, company.tenant, { timeclockActive: false });
  const refused = await punch(inactive, 'clock_in', yesterdayAt('08:00'));
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'timeclock_inactive');

  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const future = await punch(person, 'clock_in', new Date(Date.now() + 6 * 60_000).toISOString());
  assert.equal(future.status, 400);
  assert.equal(future.body.code, 'occurred_in_future');
  const nearFuture = await punch(person, 'clock_in', new Date(Date.now() + 4 * 60_000).toISOString());
  assert.equal(nearFuture.status, 200);
});

test('badgeId xor userId; companyId must be the person\'s company; the body is validated', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const base = { eventId: randomUUID(), type: 'clock_in', occurredAt: yesterdayAt('08:00'), source: 'terminal' };
  const both = await postJson<ProblemBody>(url(), company.token, { ...base, badgeId: person.badgeId, userId: person.id });
  assert.equal(both.status, 400);
  const neither = await postJson<ProblemBody>(url(), company.token, base);
  assert.equal(neither.status, 400);

  const sibling = await provisionTenant(company.server.ctx, { name: 'Sibling', organisationId: company.tenant.organisationId });
  const elsewhere = await postJson<ProblemBody>(url(), company.token, { ...base, badgeId: person.badgeId, companyId: sibling.companyId });
  assert.equal(elsewhere.status, 404);
  const here = await postJson<StoredEvent>(url(), company.token, { ...base, badgeId: person.badgeId, companyId: company.tenant.companyId });
  assert.equal(here.status, 200);

  for (const bad of [{ eventId: 'not-a-uuid' }, { occurredAt: '2026-11-21T08:00:00' }, { type: 'lunch' }, { source: 'fax' }, { location: { latitude: 91, longitude: 0 } }, { extra: 1 }]) {
    const response = await postJson<ProblemBody>(url(), company.token, { ...base, eventId: randomUUID(), badgeId: person.badgeId, ...bad });
    assert.equal(response.status, 400, JSON.stringify(bad));
    assert.equal(response.body.code, 'validation_failed');
  }
  const malformed = await postJson<ProblemBody>(url(), company.token, '{"eventId":');
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.code, 'malformed_body');
  const form = await company.server.fetch(url(), { method: 'POST', headers: { authorization: `Bearer ${company.token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'type=clock_in' });
  assert.equal(form.status, 415);
});

test('the read-back defaults to today, spans at most 92 days and refuses unknown parameters', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const now = new Date(Date.now() - 1000).toISOString();
  const stored = await punch(person, 'clock_in', now);
  assert.equal(stored.status, 200);
  const today = await getJson<Page<StoredEvent>>(`${url()}?userId=${person.id}`, company.token);
  assert.deepEqual(today.body.data.map((e) => e.id), [stored.body.id]);
  assert.equal((await getJson<ProblemBody>(`${url()}?from=2026-01-01&to=2026-04-03`, company.token)).status, 400);
  const typo = await getJson<ProblemBody>(`${url()}?user=${person.id}`, company.token);
  assert.equal(typo.status, 400);
  assert.match(JSON.stringify(typo.body.errors), /user/);
});

test('idempotency comes first: a replay is answered even after the timeclock was deactivated or the person removed', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const event = { eventId: randomUUID(), badgeId: person.badgeId, type: 'clock_in', occurredAt: yesterdayAt('05:00'), source: 'terminal' };
  const first = await postJson<StoredEvent>(url(), company.token, event);
  assert.equal(first.status, 200);

  await company.server.ctx.db.updateTable('employees').set({ timeclock_active: 0 }).where('id', '=', person.id).execute();
  assert.deepEqual((await postJson<StoredEvent>(url(), company.token, event)).body, first.body);
  const fresh = await postJson<ProblemBody>(url(), company.token, { ...event, eventId: randomUUID(), occurredAt: yesterdayAt('06:00') });
  assert.equal(fresh.status, 409);
  assert.equal(fresh.body.code, 'timeclock_inactive');

  await company.server.ctx.db.deleteFrom('employees').where('id', '=', person.id).execute();
  assert.deepEqual((await postJson<StoredEvent>(url(), company.token, event)).body, first.body);
  assert.equal((await postJson<ProblemBody>(url(), company.token, { ...event, eventId: randomUUID(), occurredAt: yesterdayAt('07:00') })).status, 404);
});

test('occurredAt is read as luxon reads ISO 8601: the RFC 3339 fast path gives the same instant, and what luxon refuses is refused', () => {
  const accepted = [
    '2026-11-22T09:00:00+01:00', '2026-11-22T09:00:00Z', '2026-11-22T09:00:00-05:30', '2026-11-22T09:00:00-00:00', '2026-11-22T23:59:59+14:00',
    '2024-02-29T12:00:00Z', '2026-12-31T23:59:59.999-12:00', '2026-03-29T02:30:00+02:00', '2026-11-22T09:00:00.5Z', '2026-11-22T09:00:00.29+01:00',
    '2026-11-22T09:00:00.57Z', '2026-11-22T09:00:00.123456789+01:00', '2026-11-22T09:00:00.0005Z', '1970-01-01T00:00:00Z', '1969-12-31T23:59:59.999Z',
    '0999-06-01T00:00:00Z', '2026-11-22T09:00:00+0100', '2026-11-22T09:00:00+01', '2026-11-22T09:00:00,5Z', '2026-11-22T24:00:00Z',
    '2026-11-22T09:00:00.1234567890123Z', '2026-11-22T09:00:00+24:00', '2026-11-22T09:00:00-23:59',
  ];
  for (const value of accepted) assert.equal(parseOccurredAt(value), DateTime.fromISO(value, { setZone: true }).toMillis(), value);
  for (let ms = 0; ms < 1000; ms += 1) {
    const value = `2026-11-22T09:00:00.${String(ms).padStart(3, '0')}+01:00`;
    assert.equal(parseOccurredAt(value), DateTime.fromISO(value, { setZone: true }).toMillis(), value);
  }
  const refused = ['2026-02-29T09:00:00Z', '2026-04-31T09:00:00Z', '2026-13-01T09:00:00Z', '2026-11-22T25:00:00Z', '2026-11-22T09:60:00Z', '2026-11-22T23:59:60Z', '2026-11-22T09:00:00', '2026-11-22 09:00:00Z',];
  for (const value of refused) assert.throws(() => parseOccurredAt(value), (error: unknown) => error instanceof ProblemError && error.code === 'validation_failed', value);
});
