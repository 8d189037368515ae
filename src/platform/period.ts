// Periods of the company API (contract: secured company API): inclusive `from`/`to` dates local to the company's time
// zone, defaulting to "today" there, spanning at most 92 days.
import { DateTime } from 'luxon';
import { Type } from 'typebox';
import { badRequest, queryParameter } from './errors.ts';
import { PATTERNS } from './schemas.ts';

const DATE_PATTERN = PATTERNS.date.pattern;
const DATE_TEXT = new RegExp(DATE_PATTERN);

export const PeriodQuery = {
  from: Type.Optional(Type.String({ pattern: DATE_PATTERN, description: 'First day (YYYY-MM-DD, company time zone), inclusive.' })),
  to: Type.Optional(Type.String({ pattern: DATE_PATTERN, description: 'Last day (YYYY-MM-DD, company time zone), inclusive.' })),
};

export const MAX_PERIOD_DAYS = 92;

export interface Period {
  from: string;
  to: string;
}

interface LocalDay {
  date: string;
  /** The day's first instant and the next day's first instant, in epoch milliseconds. */
  startsAt: number;
  endsAt: number;
}

// The current day per time zone, kept with its bounds: finding a zone's offset is the costly part
// of "today", and within the day's bounds the answer cannot change. One entry per zone in use.
const currentDays = new Map<string, LocalDay>();

/** Today's date (YYYY-MM-DD) in `timezone`. */
export function today(timezone: string, now = Date.now()): string {
  const known = currentDays.get(timezone);
  if (known && now >= known.startsAt && now < known.endsAt) return known.date;
  const start = DateTime.fromMillis(now, { zone: timezone }).startOf('day');
  const day = { date: start.toISODate() ?? '', startsAt: start.toMillis(), endsAt: start.plus({ days: 1 }).toMillis() };
  currentDays.set(timezone, day);
  return day.date;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * True when `value` is a real calendar date written as YYYY-MM-DD (proleptic Gregorian, as luxon).
 * By arithmetic: luxon's parse cost ~3 µs, and a 5,000-item batch can name hundreds of days.
 */
export function isCalendarDate(value: string): boolean {
  if (!DATE_TEXT.test(value)) return false;
  const [year, month, day] = [Number(value.slice(0, 4)), Number(value.slice(5, 7)), Number(value.slice(8, 10))];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** Parses a YYYY-MM-DD that is a real calendar date, else a 400 naming the parameter. */
export function parseDate(name: string, value: string): DateTime {
  const date = DateTime.fromISO(value, { zone: 'UTC' });
  if (!DATE_TEXT.test(value) || !date.isValid) {
    throw badRequest('invalid_date', `${name} ${PATTERNS.date.message}, got "${value}".`, [{ path: queryParameter(name), message: PATTERNS.date.message }]);
  }
  return date;
}

export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate() ?? date;
}

/**
 * Resolves `from`/`to`: both absent → `fallback` (today..today unless given); one given → the other
 * defaults to it; `from` after `to` or a span over `maxDays` → 400.
 */
export function resolvePeriod(query: { from?: string; to?: string }, timezone: string, now: number, options: { maxDays?: number; fallback?: Period } = {}): Period {
  const maxDays = options.maxDays ?? MAX_PERIOD_DAYS;
  if (query.from === undefined && query.to === undefined) {
    if (options.fallback) return options.fallback;
    const day = today(timezone, now);
    return { from: day, to: day };
  }
  // A lone parameter stands for both ends; a bad value is reported under the name it was sent as.
  const from = query.from !== undefined ? parseDate('from', query.from) : parseDate('to', query.to ?? '');
  const to = query.to !== undefined ? parseDate('to', query.to) : from;
  if (from > to) throw badRequest('invalid_period', '`from` must not be after `to`.', [{ path: queryParameter('from'), message: 'is after to' }]);
  const days = to.diff(from, 'days').days + 1;
  if (days > maxDays) {
    throw badRequest('period_too_long', `The period spans ${days} days; at most ${maxDays} are allowed (to ≤ from + ${maxDays - 1}).`, [{ path: queryParameter('to'), message: `must be at most ${maxDays - 1} days after from` }]);
  }
  return { from: from.toISODate() ?? '', to: to.toISODate() ?? '' };
}
