// TimetableFeed: one day from today − 8 to today + 38 with everything embedded; instants in the
// company's offset on DST days and across midnight; ETag and If-None-Match on feed and collections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useCompanyServer } from '../support/company.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { apiGet, baseDocument, dayFromToday, shift, user } from './fixtures.ts';
import type { Page } from '../support/http.ts';
import { DateTime } from 'luxon';
import { feedDate } from '../../src/company/feed.ts';

const T = (days: number) => dayFromToday(days);

interface FeedShift {
  id: string;
  date: string;
  startsAt: string;
  endsAt: string;
  userId: string | null;
  category: string;
  user: { id: string; employeeNumber: string; firstName: string; lastName: string } | null;
  department: { id: string; name: string; code: string };
  position: { id: string; name: string; departmentId: string } | null;
  shiftType: { id: string; name: string; category: string; paid: boolean };
}
interface Feed {
  date: string;
  company: { id: string; name: string; timezone: string };
  shifts: FeedShift[];
}

function document() {
  const doc = baseDocument();
  doc.users.push(user('ann', { firstName: 'Ann', lastName: 'Smit' }));
  doc.shifts.push(
    shift('today-work', T(0), { userRef: 'ann', start: '08:00', end: '16:00' }),
    shift('today-open', T(0), { start: '12:00', end: '20:00', positionRef: null, departmentRef: 'floor' }),
    shift('today-sick', T(0), { userRef: 'ann', shiftTypeRef: 'sick', start: '17:00', end: '21:00', breakMinutes: 0 }),
    ...[-9, -8, 38, 39].map((days) => shift(`edge${days}`, T(days))),
    // Europe/Amsterdam: 2026-03-29 02:00 → 03:00 (CET → CEST), 2026-10-25 03:00 → 02:00 (CEST → CET).
    shift('spring-across', '2026-03-29', { start: '01:00', end: '04:00', breakMinutes: 0 }),
    shift('autumn-across', '2026-10-25', { start: '01:00', end: '04:00', breakMinutes: 0 }),
    shift('autumn-fold', '2026-10-25', { start: '02:30', end: '05:00', breakMinutes: 0 }),
    shift('autumn-overnight', '2026-10-24', { start: '22:00', end: '06:00' }),
    shift('winter-overnight', '2026-12-31', { start: '20:00', end: '02:00' }),
    shift('summer-overnight', '2026-07-01', { start: '23:00', end: '23:00', breakMinutes: 60 }),
  );
  return doc;
}

const company = useCompanyServer({ name: 'Feed Co', data: document(), inProcess: true });

test('the feed defaults to today and embeds user, department, position and shift type', async () => {
  const response = await apiGet<Feed>(company.server.baseUrl, company.token, '/feeds/timetable');
  assert.equal(response.status, 200);
  const feed = response.body;
  assert.equal(feed.date, T(0));
  assert.deepEqual(feed.company, { id: company.tenant.companyId, name: 'Feed Co', timezone: 'Europe/Amsterdam' });
  assert.deepEqual(feed.shifts.map((s) => s.startsAt.slice(11, 16)), ['08:00', '12:00', '17:00']);
  const [work, open, sick] = feed.shifts;
  assert.ok(work && open && sick);
  assert.deepEqual({ ...work.user, id: undefined }, { id: undefined, employeeNumber: 'E-ann', firstName: 'Ann', lastName: 'Smit' });
  assert.equal(work.user?.id, work.userId);
  assert.deepEqual({ ...work.department, id: undefined }, { id: undefined, name: 'Kitchen', code: 'KIT' });
  assert.equal(work.position?.name, 'Cook');
  assert.equal(work.position?.departmentId, work.department.id);
  assert.deepEqual({ ...work.shiftType, id: undefined }, { id: undefined, name: 'Shift', category: 'work', paid: true });
  assert.equal(open.userId, null);
  assert.equal(open.user, null);
  assert.equal(open.position, null);
  assert.equal(open.department.code, 'FLR');
  assert.equal(sick.category, 'absence');
  assert.equal(sick.shiftType.category, 'absence');
  const keys = ['breakMinutes', 'category', 'date', 'department', 'departmentId', 'endsAt', 'id', 'note', 'position', 'positionId', 'shiftType', 'shiftTypeId', 'startsAt', 'updatedAt', 'user', 'userId'];
  assert.deepEqual(Object.keys(work).sort(), keys);
});

test('the feed serves today − 8 and today + 38; today − 9 and today + 39 are 400 date_out_of_range', async () => {
  for (const days of [-8, 38]) {
    const response = await apiGet<Feed>(company.server.baseUrl, company.token, `/feeds/timetable?date=${T(days)}`);
    assert.equal(response.status, 200, `day ${days}`);
    assert.deepEqual(response.body.shifts.map((s) => s.date), [T(days)]);
  }
  for (const days of [-9, 39]) {
    const response = await apiGet<{ code: string; errors: Array<{ path: string }> }>(company.server.baseUrl, company.token, `/feeds/timetable?date=${T(days)}`);
    assert.equal(response.status, 400, `day ${days}`);
    assert.equal(response.body.code, 'date_out_of_range');
    assert.equal(response.body.errors[0]?.path, '/querystring/date');
  }
  const malformed = await apiGet<{ code: string; errors: Array<{ path: string }> }>(company.server.baseUrl, company.token, '/feeds/timetable?date=tomorrow');
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.code, 'validation_failed');
  assert.deepEqual(malformed.body.errors.map((e) => e.path), ['/querystring/date']);
  const impossible = await apiGet<{ code: string; errors: Array<{ path: string }> }>(company.server.baseUrl, company.token, '/feeds/timetable?date=2026-02-30');
  assert.equal(impossible.status, 400);
  assert.equal(impossible.body.code, 'invalid_date');
  assert.deepEqual(impossible.body.errors.map((e) => e.path), ['/querystring/date']);
});

async function shiftOn(date: string, hhmm: string) {
  const response = await apiGet<Page<{ date: string; startsAt: string; endsAt: string }>>(company.server.baseUrl, company.token, `/company/timetable?from=${date}&to=${date}`);
  assert.equal(response.status, 200);
  const found = response.body.data.find((s) => s.startsAt.slice(11, 16) === hhmm);
  assert.ok(found, `a shift on ${date} at ${hhmm}`);
  return found;
}

test('a shift across the spring change has the right offsets (3 wall-clock hours, 2 real)', async () => {
  const across = await shiftOn('2026-03-29', '01:00');
  assert.equal(across.startsAt, '2026-03-29T01:00:00+01:00');
  assert.equal(across.endsAt, '2026-03-29T04:00:00+02:00');
  assert.equal(Date.parse(across.endsAt) - Date.parse(across.startsAt), 2 * 3600_000);
});

test('a shift across the autumn change has the right offsets; a repeated time means its first occurrence', async () => {
  const across = await shiftOn('2026-10-25', '01:00');
  assert.equal(across.startsAt, '2026-10-25T01:00:00+02:00');
  assert.equal(across.endsAt, '2026-10-25T04:00:00+01:00');
  assert.equal(Date.parse(across.endsAt) - Date.parse(across.startsAt), 4 * 3600_000);
  const fold = await shiftOn('2026-10-25', '02:30');
  assert.equal(fold.startsAt, '2026-10-25T02:30:00+02:00');
  assert.equal(fold.endsAt, '2026-10-25T05:00:00+01:00');
});

test('an end not after the start ends the next day, keeping the start date (also across a DST change)', async () => {
  const autumn = await shiftOn('2026-10-24', '22:00');
  assert.equal(autumn.date, '2026-10-24');
  assert.equal(autumn.startsAt, '2026-10-24T22:00:00+02:00');
  assert.equal(autumn.endsAt, '2026-10-25T06:00:00+01:00');
  const newYear = await shiftOn('2026-12-31', '20:00');
  assert.equal(newYear.endsAt, '2027-01-01T02:00:00+01:00');
  const equal = await shiftOn('2026-07-01', '23:00');
  assert.equal(equal.endsAt, '2026-07-02T23:00:00+02:00');
  const nextDay = await apiGet<Page<{ startsAt: string }>>(company.server.baseUrl, company.token, '/company/timetable?from=2026-10-25&to=2026-10-25');
  assert.ok(!nextDay.body.data.some((s) => s.startsAt.startsWith('2026-10-24')), 'listed by the day it starts');
});

test('a start or end that does not exist (spring gap) is an import error at its path', async () => {
  const doc = baseDocument();
  doc.shifts.push(shift('gap-start', '2026-03-29', { start: '02:30', end: '06:00' }), shift('gap-end', '2026-03-28', { start: '22:00', end: '02:15' }));
  await assert.rejects(importCompanyData(company.server.ctx.db, company.tenant.companyId, doc), (error: { code: string; errors: Array<{ path: string; message: string }> }) => {
    assert.equal(error.code, 'invalid_import');
    assert.deepEqual(error.errors.map((e) => e.path), ['/shifts/0/start', '/shifts/1/end']);
    assert.match(error.errors[0]?.message ?? '', /02:30 does not exist on 2026-03-29 in Europe\/Amsterdam/);
    assert.match(error.errors[1]?.message ?? '', /02:15 does not exist on 2026-03-29/);
    return true;
  });
});

test('feed and collections send an ETag and answer a matching If-None-Match with an empty 304', async () => {
  for (const path of ['/feeds/timetable', '/company/users', '/company/contracts', `/company/timetable?from=${T(-1)}&to=${T(1)}`]) {
    const first = await apiGet(company.server.baseUrl, company.token, path);
    const etag = first.headers.get('etag');
    assert.match(etag ?? '', /^"[A-Za-z0-9_-]+"$/, path);
    const again = await apiGet(company.server.baseUrl, company.token, path, { 'if-none-match': etag ?? '' });
    assert.equal(again.status, 304, path);
    assert.equal(again.text, '');
    assert.equal(again.headers.get('etag'), etag);
    const stale = await apiGet(company.server.baseUrl, company.token, path, { 'if-none-match': '"something-else"' });
    assert.equal(stale.status, 200, path);
  }
});

test('a change to the data changes the feed ETag', async () => {
  const first = await apiGet(company.server.baseUrl, company.token, '/feeds/timetable');
  const doc = document();
  doc.shifts[0] = { ...doc.shifts[0], note: 'Bring knives' };
  await importCompanyData(company.server.ctx.db, company.tenant.companyId, doc);
  const second = await apiGet(company.server.baseUrl, company.token, '/feeds/timetable', { 'if-none-match': first.headers.get('etag') ?? '' });
  assert.equal(second.status, 200);
  assert.notEqual(second.headers.get('etag'), first.headers.get('etag'));
});

test('a date that does not exist is invalid_date even when it sorts inside the window', () => {
  const now = DateTime.fromISO('2026-11-22T12:00:00', { zone: 'Europe/Amsterdam' }).toMillis();
  assert.equal(feedDate('2026-11-30', 'Europe/Amsterdam', now), '2026-11-30');
  assert.throws(() => feedDate('2026-11-31', 'Europe/Amsterdam', now), (error: { code?: string }) => error.code === 'invalid_date');
  assert.throws(() => feedDate('2026-12-31', 'Europe/Amsterdam', now), (error: { code?: string }) => error.code === 'date_out_of_range');
});
