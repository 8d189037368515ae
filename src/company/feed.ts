// TimetableFeed: one day's shifts, each with its user, department, position and shift type embedded,
// for a day from today − 8 to today + 38 in the company's time zone.
import { Type, type Static } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import { badRequest, queryParameter } from '../platform/errors.ts';
import { addDays, parseDate, today } from '../platform/period.ts';
import { nullable } from '../platform/schemas.ts';
import { ShiftCategory } from './configuration.ts';
import { presentShift, Shift, SHIFT_COLUMNS, shiftsOf } from './shifts.ts';

export const FEED_DAYS_BACK = 8;
export const FEED_DAYS_AHEAD = 38;

export const FeedShift = Type.Object({
  ...Shift.properties,
  user: nullable(Type.Object({ id: Type.String(), employeeNumber: Type.String(), firstName: Type.String(), lastName: Type.String() }, { description: 'null for an open shift' })),
  department: Type.Object({ id: Type.String(), name: Type.String(), code: Type.String() }),
  position: nullable(Type.Object({ id: Type.String(), name: Type.String(), departmentId: Type.String() })),
  shiftType: Type.Object({ id: Type.String(), name: Type.String(), category: ShiftCategory, paid: Type.Boolean() }),
});

export const TimetableFeed = Type.Object({
  date: Type.String({ format: 'date' }),
  company: Type.Object({ id: Type.String(), name: Type.String(), timezone: Type.String() }),
  shifts: Type.Array(FeedShift),
});
export type TimetableFeed = Static<typeof TimetableFeed>;

interface FeedWindow {
  first: string;
  last: string;
  /** Every day of the window: a requested date found here is valid without parsing it. */
  days: Set<string>;
}

// Windows by the day they are counted from: a handful of days are in use at any time.
const windows = new Map<string, FeedWindow>();

function feedWindow(day: string): FeedWindow {
  let window = windows.get(day);
  if (!window) {
    if (windows.size >= 64) windows.clear();
    const days = Array.from({ length: FEED_DAYS_BACK + FEED_DAYS_AHEAD + 1 }, (_, i) => addDays(day, i - FEED_DAYS_BACK));
    window = { first: days[0] ?? day, last: days[days.length - 1] ?? day, days: new Set(days) };
    windows.set(day, window);
  }
  return window;
}

/** The requested day when it needs no checking — today when absent, a day of the window as written —, else undefined. */
export function windowDate(requested: string | undefined, timezone: string, now: number): string | undefined {
  const day = today(timezone, now);
  if (requested === undefined) return day;
  return feedWindow(day).days.has(requested) ? requested : undefined;
}

/** The requested day (default today), or 400 `date_out_of_range` outside the feed's window. */
export function feedDate(requested: string | undefined, timezone: string, now = Date.now()): string {
  // An absent date is today's: only a requested one can fall outside.
  return windowDate(requested, timezone, now) ?? checkedDate(requested ?? '', timezone, now);
}

/** A requested day not written as a day of the window: parsed, then in the window or 400. */
function checkedDate(requested: string, timezone: string, now: number): string {
  const { first, last } = feedWindow(today(timezone, now));
  const date = parseDate('date', requested).toISODate() ?? requested;
  if (date < first || date > last) {
    throw badRequest('date_out_of_range', `date must lie from ${first} to ${last} (today − ${FEED_DAYS_BACK} to today + ${FEED_DAYS_AHEAD}, ${timezone}).`, [
      { path: queryParameter('date'), message: `must be from ${first} to ${last}` },
    ]);
  }
  return date;
}

/** One day's shifts of a company with the rows they refer to, every join naming the company. */
export function feedQuery(db: Db, companyId: string, date: string) {
  return shiftsOf(db, companyId)
    .innerJoin('departments', (join) => join.onRef('departments.id', '=', 'shifts.department_id').onRef('departments.company_id', '=', 'shifts.company_id'))
    .leftJoin('employees', (join) => join.onRef('employees.id', '=', 'shifts.employee_id').onRef('employees.company_id', '=', 'shifts.company_id'))
    .leftJoin('positions', (join) => join.onRef('positions.id', '=', 'shifts.position_id').onRef('positions.company_id', '=', 'shifts.company_id'))
    .select(SHIFT_COLUMNS)
    .select([
      'employees.employee_number', 'employees.first_name', 'employees.last_name',
      'departments.name as department_name', 'departments.code as department_code',
      'positions.name as position_name', 'positions.department_id as position_department_id',
      'shift_types.name as shift_type_name', 'shift_types.paid as shift_type_paid',
    ])
    .where('shifts.date', '=', date)
    .orderBy('shifts.starts_at')
    .orderBy('shifts.id');
}

export async function timetableFeed(db: Db, company: { id: string; name: string; timezone: string }, date: string): Promise<TimetableFeed> {
  const rows = await feedQuery(db, company.id, date).execute();
  return {
    date,
    company: { id: company.id, name: company.name, timezone: company.timezone },
    shifts: rows.map((row) => {
      const shift = presentShift(row, company.timezone);
      return {
        ...shift,
        user: row.employee_id ? { id: row.employee_id, employeeNumber: row.employee_number ?? '', firstName: row.first_name ?? '', lastName: row.last_name ?? '' } : null,
        department: { id: row.department_id, name: row.department_name, code: row.department_code },
        position: row.position_id ? { id: row.position_id, name: row.position_name ?? '', departmentId: row.position_department_id ?? '' } : null,
        shiftType: { id: row.shift_type_id, name: row.shift_type_name, category: shift.category, paid: row.shift_type_paid === 1 },
      };
    }),
  };
}
