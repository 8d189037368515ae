// The company's time zone decides everything dated (contract: secured company API, "Time"): "today" and so the feed's
// window, the default timetable day and the default users and contracts are dates in the company's
// zone, never the server's or UTC's; instants carry the company's offset, offset 0 written `+00:00`.
//
// Pacific/Kiritimati (UTC+14) and Pacific/Pago_Pago (UTC−11) are 25 hours apart, so they are never on
// the same date: whatever the time of the run, at least one of them is on another date than UTC and
// than the server, and a "today" taken from either would fail that company's tests.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { signedInCompany, type SignedInCompany } from '../support/company.ts';
import type { Page } from '../support/http.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { formatInstant } from '../../src/platform/local-time.ts';
import { feedDate } from '../../src/company/feed.ts';
import type { Configuration } from '../../src/company/configuration.ts';
import { apiGet, baseDocument, contract, dayFromToday, shift, user } from './fixtures.ts';

const KIRITIMATI = 'Pacific/Kiritimati';
const PAGO_PAGO = 'Pacific/Pago_Pago';
const FAR_ZONES = [
  { zone: KIRITIMATI, offset: '+14:00' },
  { zone: PAGO_PAGO, offset: '-11:00' },
] as const;

interface Problem { code: string; errors: Array<{ path: string }> }
interface Shift { date: string; startsAt: string; endsAt: string; updatedAt: string }
interface Feed { date: string; company: { timezone: string }; shifts: Shift[] }

test('formatInstant writes offset 0 as +00:00 in every zone that has it, never Z', () => {
  const winter = Date.parse('2026-01-15T09:00:00Z');
  for (const zone of ['UTC', 'GMT', 'Etc/UTC', 'Etc/GMT', 'Europe/London', 'Africa/Abidjan']) {
    assert.equal(formatInstant(winter, zone), '2026-01-15T09:00:00+00:00', zone);
    assert.equal(formatInstant(winter + 250, zone), '2026-01-15T09:00:00.250+00:00', zone);
  }
  assert.equal(formatInstant(Date.parse('2026-07-01T09:00:00Z'), 'Europe/London'), '2026-07-01T10:00:00+01:00');
  assert.equal(formatInstant(winter, KIRITIMATI), '2026-01-15T23:00:00+14:00');
  assert.equal(formatInstant(winter, PAGO_PAGO), '2026-01-14T22:00:00-11:00');
});

test('feedDate counts today and the window from the company\'s date, not the UTC date', () => {
  // 10:30 UTC on 2026-11-22: already 2026-11-23 in Kiritimati, still 2026-11-21 in Pago Pago.
  const now = Date.parse('2026-11-22T10:30:00Z');
  const outOfRange = (error: { code?: string }) => error.code === 'date_out_of_range';
  assert.equal(feedDate(undefined, 'UTC', now), '2026-11-22');

  assert.equal(feedDate(undefined, KIRITIMATI, now), '2026-11-23');
  assert.equal(feedDate('2026-11-15', KIRITIMATI, now), '2026-11-15');
  assert.equal(feedDate('2026-12-31', KIRITIMATI, now), '2026-12-31');
  assert.throws(() => feedDate('2026-11-14', KIRITIMATI, now), outOfRange);
  assert.throws(() => feedDate('2027-01-01', KIRITIMATI, now), outOfRange);

  assert.equal(feedDate(undefined, PAGO_PAGO, now), '2026-11-21');
  assert.equal(feedDate('2026-11-13', PAGO_PAGO, now), '2026-11-13');
  assert.equal(feedDate('2026-12-29', PAGO_PAGO, now), '2026-12-29');
  assert.throws(() => feedDate('2026-11-12', PAGO_PAGO, now), outOfRange);
  assert.throws(() => feedDate('2026-12-30', PAGO_PAGO, now), outOfRange);
});

test('the two far zones are never on the same date, so one of them always differs from UTC and the server', () => {
  const dates = FAR_ZONES.map(({ zone }) => dayFromToday(0, zone));
  assert.notEqual(dates[0], dates[1]);
  const utc = DateTime.utc().toISODate();
  const server = DateTime.local().toISODate();
  assert.ok(dates.some((date) => date !== utc), `one of ${dates.join(', ')} is not the UTC date ${utc}`);
  assert.ok(dates.some((date) => date !== server), `one of ${dates.join(', ')} is not the server's date ${server}`);
});

/**
 * The servers' clock: the next instant at 07:30 past a UTC hour. Every zone's offset is a multiple of
 * 15 minutes, so there it is 07:30, 22:30, 37:30 or 52:30 past a local hour — never within minutes of
 * a local midnight — and "today" holds for the whole file without waiting one out.
 */
const clock = new ManualClock(Math.ceil((Date.now() - 450_000) / 3_600_000) * 3_600_000 + 450_000);
const startServer = () => startTestServer({}, { clock, inProcess: true });

/** A company in `zone` with rows dated around its own today (T(0)). */
function aroundToday(zone: string) {
  const T = (days: number) => dayFromToday(days, zone, clock.now());
  const doc = baseDocument();
  doc.users.push(
    user('always'),
    user('ended-yesterday', { employmentEnd: T(-1) }),
    user('ends-today', { employmentEnd: T(0) }),
    user('starts-tomorrow', { employmentStart: T(1) }),
  );
  doc.contracts.push(
    contract('ended-yesterday', 'always', { endDate: T(-1) }),
    contract('ends-today', 'always', { endDate: T(0) }),
    contract('starts-today', 'always', { startDate: T(0) }),
    contract('starts-tomorrow', 'always', { startDate: T(1) }),
  );
  for (const days of [-9, -8, -1, 0, 1, 38, 39]) doc.shifts.push(shift(`day${days}`, T(days), { userRef: 'always' }));
  return doc;
}

for (const { zone, offset } of FAR_ZONES) {
  describe(`a company in ${zone} (UTC${offset})`, () => {
    let server: TestServer;
    let company: SignedInCompany;
    const T = (days: number) => dayFromToday(days, zone, clock.now());
    const get = <B>(path: string) => apiGet<B>(server.baseUrl, company.token, path);

    before(async () => {
      server = await startServer();
      company = await signedInCompany(server.ctx, { name: zone, timezone: zone, data: aroundToday(zone) });
    });
    after(() => server.close());

    test('the feed defaults to the company\'s today and writes its instants in the company\'s offset', async () => {
      const feed = await get<Feed>('/feeds/timetable');
      assert.equal(feed.status, 200);
      assert.equal(feed.body.date, T(0));
      assert.equal(feed.body.company.timezone, zone);
      assert.deepEqual(feed.body.shifts.map((s) => [s.date, s.startsAt, s.endsAt]), [[T(0), `${T(0)}T09:00:00${offset}`, `${T(0)}T17:00:00${offset}`]]);
    });

    test('the feed window is today − 8 … today + 38 in the company\'s zone', async () => {
      for (const days of [-8, 38]) {
        const response = await get<Feed>(`/feeds/timetable?date=${T(days)}`);
        assert.equal(response.status, 200, `today ${days}: ${response.text}`);
        assert.deepEqual(response.body.shifts.map((s) => s.date), [T(days)]);
      }
      for (const days of [-9, 39]) {
        const response = await get<Problem>(`/feeds/timetable?date=${T(days)}`);
        assert.equal(response.status, 400, `today ${days}`);
        assert.equal(response.body.code, 'date_out_of_range');
        assert.deepEqual(response.body.errors.map((e) => e.path), ['/querystring/date']);
      }
    });

    test('the timetable defaults to the shifts dated the company\'s today', async () => {
      const response = await get<Page<Shift>>('/company/timetable');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.data.map((s) => [s.date, s.startsAt]), [[T(0), `${T(0)}T09:00:00${offset}`]]);
    });

    test('users default to employment active on the company\'s today or starting later', async () => {
      const response = await get<Page<{ employeeNumber: string }>>('/company/users');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.data.map((u) => u.employeeNumber), ['E-always', 'E-ends-today', 'E-starts-tomorrow']);
    });

    test('contracts default to those active on the company\'s today', async () => {
      const response = await get<Page<{ startDate: string; endDate: string | null }>>('/company/contracts');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.data.map((c) => [c.startDate, c.endDate]), [['2020-01-01', T(0)], [T(0), null]]);
    });
  });
}

describe('a company at offset 0 writes its instants with +00:00', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  test('shifts, users and contracts of a UTC company: startsAt, endsAt and updatedAt end in +00:00', async () => {
    const company = await signedInCompany(server.ctx, { name: 'Greenwich', timezone: 'UTC' });
    const doc = baseDocument();
    doc.users.push(user('ann'));
    doc.contracts.push(contract('ann-1', 'ann'));
    doc.shifts.push(shift('day', '2026-01-15', { userRef: 'ann' }), shift('night', '2026-01-15', { start: '22:00', end: '06:00' }));
    await importCompanyData(server.ctx.db, company.tenant.companyId, doc, Date.parse('2026-01-15T08:30:00.250Z'));
    const get = <B>(path: string) => apiGet<B>(server.baseUrl, company.token, path);

    const configuration = await get<Configuration>('/company/configuration');
    assert.equal(configuration.body.company.timezone, 'UTC');
    const shifts = await get<Page<Shift>>('/company/timetable?from=2026-01-15&to=2026-01-15');
    assert.deepEqual(shifts.body.data.map((s) => [s.startsAt, s.endsAt, s.updatedAt]), [
      ['2026-01-15T09:00:00+00:00', '2026-01-15T17:00:00+00:00', '2026-01-15T08:30:00.250+00:00'],
      ['2026-01-15T22:00:00+00:00', '2026-01-16T06:00:00+00:00', '2026-01-15T08:30:00.250+00:00'],
    ]);
    const users = await get<Page<{ updatedAt: string }>>('/company/users?from=2026-01-15');
    assert.deepEqual(users.body.data.map((u) => u.updatedAt), ['2026-01-15T08:30:00.250+00:00']);
    const contracts = await get<Page<{ updatedAt: string }>>('/company/contracts?from=2026-01-15');
    assert.deepEqual(contracts.body.data.map((c) => c.updatedAt), ['2026-01-15T08:30:00.250+00:00']);
  });

  test('the feed of a UTC company writes +00:00, and so does a Europe/London company in winter', async () => {
    const today = dayFromToday(0, 'UTC', clock.now());
    const utc = await signedInCompany(server.ctx, { name: 'UTC feed', timezone: 'UTC', data: { ...baseDocument(), shifts: [shift('today', today)] } });
    const feed = await apiGet<Feed>(server.baseUrl, utc.token, '/feeds/timetable');
    assert.equal(feed.body.company.timezone, 'UTC');
    assert.deepEqual(feed.body.shifts.map((s) => [s.startsAt, s.endsAt]), [[`${today}T09:00:00+00:00`, `${today}T17:00:00+00:00`]]);

    const london = await signedInCompany(server.ctx, { name: 'London', timezone: 'Europe/London', data: { ...baseDocument(), shifts: [shift('winter', '2026-12-01', { start: '23:00', end: '01:30' }), shift('summer', '2026-07-01')] } });
    const winter = await apiGet<Page<Shift>>(server.baseUrl, london.token, '/company/timetable?from=2026-12-01');
    assert.deepEqual(winter.body.data.map((s) => [s.startsAt, s.endsAt]), [['2026-12-01T23:00:00+00:00', '2026-12-02T01:30:00+00:00']]);
    const summer = await apiGet<Page<Shift>>(server.baseUrl, london.token, '/company/timetable?from=2026-07-01');
    assert.deepEqual(summer.body.data.map((s) => [s.startsAt, s.endsAt]), [['2026-07-01T09:00:00+01:00', '2026-07-01T17:00:00+01:00']]);
  });
});
