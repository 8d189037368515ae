// The period of an inbound item: one day (`date`) or one ISO week (`week`, e.g. 2026-W47, Monday to
// Sunday). Both become a key for the upsert and a day range for the overlap query of the read-back.
import { DateTime } from 'luxon';
import type { FieldError } from '../platform/errors.ts';
import { isCalendarDate } from '../platform/period.ts';
import { PATTERNS } from '../platform/schemas.ts';

export interface ItemPeriod {
  date: string | null;
  week: string | null;
  key: string;
  start: string;
  end: string;
}

const WEEK = /^(\d{4})-W(\d{2})$/;

/** Monday and Sunday of an ISO week, or undefined when the week does not exist (W00, W53 of a 52-week year). */
export function weekDays(week: string): { start: string; end: string } | undefined {
  const match = WEEK.exec(week);
  if (!match) return undefined;
  const [weekYear, weekNumber] = [Number(match[1]), Number(match[2])];
  const monday = DateTime.fromObject({ weekYear, weekNumber, weekday: 1 }, { zone: 'UTC' });
  if (!monday.isValid || monday.weekNumber !== weekNumber || monday.weekYear !== weekYear) return undefined;
  return { start: monday.toISODate() ?? '', end: monday.plus({ days: 6 }).toISODate() ?? '' };
}

function parsePeriod(date: string | null, week: string | null): ItemPeriod | FieldError {
  if (date !== null) {
    if (!isCalendarDate(date)) return { path: '/date', message: PATTERNS.date.message };
    return { date, week: null, key: date, start: date, end: date };
  }
  const days = weekDays(week ?? '');
  if (!days) return { path: '/week', message: PATTERNS.isoWeek.message };
  return { date: null, week, key: week ?? '', ...days };
}

/**
 * A reader of item periods for one batch: exactly one of `date` and `week` (null counts as absent);
 * problems go to `errors` under the item's `path`. A batch repeats few distinct periods across
 * thousands of items, so each is parsed once.
 */
export function periodReader() {
  const parsed = new Map<string, ItemPeriod | FieldError>();
  return (item: { date?: string | null; week?: string | null }, path: string, errors: FieldError[]): ItemPeriod | undefined => {
    const date = item.date ?? null;
    const week = item.week ?? null;
    if ((date === null) === (week === null)) {
      errors.push({ path, message: 'must have exactly one of date and week' });
      return undefined;
    }
    const cacheKey = date ?? `W:${week}`;
    let period = parsed.get(cacheKey);
    if (period === undefined) {
      period = parsePeriod(date, week);
      parsed.set(cacheKey, period);
    }
    if ('key' in period) return period;
    errors.push({ path: `${path}${period.path}`, message: period.message });
    return undefined;
  };
}
