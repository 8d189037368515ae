import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { isCalendarDate, today } from '../../src/platform/period.ts';

const at = (iso: string, zone: string) => DateTime.fromISO(iso, { zone }).toMillis();

test('today turns over exactly at local midnight, also when asked again and again within a day', () => {
  const zone = 'Europe/Amsterdam';
  assert.equal(today(zone, at('2026-11-22T12:00:00', zone)), '2026-11-22');
  assert.equal(today(zone, at('2026-11-22T23:59:59.999', zone)), '2026-11-22');
  assert.equal(today(zone, at('2026-11-23T00:00:00.000', zone)), '2026-11-23');
  // Going back in time (another caller's clock) is answered right too.
  assert.equal(today(zone, at('2026-11-21T23:59:59.999', zone)), '2026-11-21');
});

test('today follows each zone on its own, across daylight-saving changes', () => {
  // 2026-03-29 has 23 hours in Amsterdam, 2026-10-25 has 25.
  const zone = 'Europe/Amsterdam';
  assert.equal(today(zone, at('2026-03-29T00:30:00', zone)), '2026-03-29');
  assert.equal(today(zone, at('2026-03-29T23:59:59.999', zone)), '2026-03-29');
  assert.equal(today(zone, at('2026-03-30T00:00:00', zone)), '2026-03-30');
  assert.equal(today(zone, at('2026-10-25T23:30:00', zone)), '2026-10-25');
  assert.equal(today(zone, at('2026-10-26T00:00:00', zone)), '2026-10-26');
  const instant = at('2026-11-22T23:30:00', 'UTC');
  assert.equal(today('UTC', instant), '2026-11-22');
  assert.equal(today('Pacific/Kiritimati', instant), '2026-11-23');
  assert.equal(today('Pacific/Pago_Pago', instant), '2026-11-22');
});

test('a calendar date is YYYY-MM-DD of a day that exists, leap days by the Gregorian rule, as luxon reads them', () => {
  const dates = ['2024-02-29', '2023-02-29', '2000-02-29', '1900-02-29', '2026-04-30', '2026-04-31', '2026-12-31', '2026-13-01', '2026-00-10', '2026-01-00', '0000-02-29', '9999-12-31', '2026-1-01', '2026-01-01T00', ' 2026-01-01'];
  assert.deepEqual(dates.map(isCalendarDate), [true, false, true, false, true, false, true, false, false, false, true, true, false, false, false]);
  for (const date of dates.slice(0, 12)) assert.equal(isCalendarDate(date), DateTime.fromISO(date, { zone: 'UTC' }).isValid, date);
});
