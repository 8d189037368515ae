// getTimetable: shifts whose (company-local) date lies in the period, in start order.
import { Type, type Static } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import { afterPosition, type SortKey } from '../platform/collection.ts';
import type { Period } from '../platform/period.ts';
import { ShiftCategory } from './configuration.ts';
import { formatInstant } from '../platform/local-time.ts';
import type { ShiftsTable } from './tables.ts';

export const Shift = Type.Object({
  id: Type.String(),
  date: Type.String({ format: 'date', description: 'The day the shift starts (company time zone).' }),
  startsAt: Type.String({ format: 'date-time', description: 'In the company\'s offset at that instant.' }),
  endsAt: Type.String({ format: 'date-time' }),
  breakMinutes: Type.Integer(),
  userId: Type.Union([Type.String(), Type.Null()], { description: 'null for an open shift' }),
  departmentId: Type.String(),
  positionId: Type.Union([Type.String(), Type.Null()]),
  shiftTypeId: Type.String(),
  category: ShiftCategory,
  note: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type Shift = Static<typeof Shift>;

/** A shift as SHIFT_COLUMNS selects it: every column but company_id and ref, plus its type's category. */
export type ShiftRow = Omit<ShiftsTable, 'company_id' | 'ref'> & { category: string };

export const SHIFT_COLUMNS = [
  'shifts.id', 'shifts.date', 'shifts.starts_at', 'shifts.ends_at', 'shifts.break_minutes', 'shifts.employee_id', 'shifts.department_id',
  'shifts.position_id', 'shifts.shift_type_id', 'shift_types.category', 'shifts.note', 'shifts.updated_at',
] as const;

export function presentShift(row: ShiftRow, timezone: string): Shift {
  return {
    id: row.id,
    date: row.date,
    startsAt: formatInstant(row.starts_at, timezone),
    endsAt: formatInstant(row.ends_at, timezone),
    breakMinutes: row.break_minutes,
    userId: row.employee_id,
    departmentId: row.department_id,
    positionId: row.position_id,
    shiftTypeId: row.shift_type_id,
    category: row.category as Shift['category'],
    note: row.note,
    updatedAt: formatInstant(row.updated_at, timezone),
  };
}

/** Shifts of one company joined to their type (for the category), both sides naming the company. */
export function shiftsOf(db: Db, companyId: string) {
  return db
    .selectFrom('shifts')
    .innerJoin('shift_types', (join) => join.onRef('shift_types.id', '=', 'shifts.shift_type_id').onRef('shift_types.company_id', '=', 'shifts.company_id'))
    .where('shifts.company_id', '=', companyId);
}

/** Shifts dated in `period`, after the keyset position, in page order. */
export function shiftsQuery(db: Db, companyId: string, period: Period, after: SortKey | undefined) {
  let query = shiftsOf(db, companyId).select(SHIFT_COLUMNS).where('shifts.date', '>=', period.from).where('shifts.date', '<=', period.to);
  if (after) query = query.where(afterPosition(['shifts.date', 'shifts.starts_at', 'shifts.id'], after));
  return query.orderBy('shifts.date').orderBy('shifts.starts_at').orderBy('shifts.id');
}

/** Sort key of the listing (date, startsAt, then id): the columns the query orders by. */
export function shiftPosition(row: ShiftRow): SortKey {
  return [row.date, row.starts_at, row.id];
}
