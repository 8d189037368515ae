// getCompanyUsers: employees whose employment overlaps the period (by default: active or future).
import { Type, type Static } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import { afterPosition, type SortKey } from '../platform/collection.ts';
import type { Period } from '../platform/period.ts';
import { overlapsPeriod } from './date-range.ts';
import { formatInstant } from '../platform/local-time.ts';
import type { EmployeesTable } from './tables.ts';

export const CompanyUser = Type.Object({
  id: Type.String(),
  employeeNumber: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  departmentIds: Type.Array(Type.String()),
  positionIds: Type.Array(Type.String()),
  employmentStart: Type.String({ format: 'date', description: 'First day of employment (company time zone).' }),
  employmentEnd: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'Last day of employment; null while open.' }),
  timeclockActive: Type.Boolean(),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type CompanyUser = Static<typeof CompanyUser>;

/** "Active or starting later": the period from today with no end. */
export const ACTIVE_OR_FUTURE_END = '9999-12-31';

/** Employees whose employment overlaps `period`, after the keyset position, in page order. */
export function usersQuery(db: Db, companyId: string, period: Period, after: SortKey | undefined) {
  let query = db
    .selectFrom('employees')
    .select(['id', 'employee_number', 'first_name', 'last_name', 'email', 'department_ids', 'position_ids', 'employment_start', 'employment_end', 'timeclock_active', 'updated_at'])
    .where('company_id', '=', companyId)
    .where(overlapsPeriod('employment_start', 'employment_end', period));
  if (after) query = query.where(afterPosition(['employee_number', 'id'], after));
  return query.orderBy('employee_number').orderBy('id');
}

/** The columns a user is shown from. */
export type UserRow = Pick<EmployeesTable, 'id' | 'employee_number' | 'first_name' | 'last_name' | 'email' | 'department_ids' | 'position_ids' | 'employment_start' | 'employment_end' | 'timeclock_active' | 'updated_at'>;

export function presentUser(row: UserRow, timezone: string): CompanyUser {
  return {
    id: row.id,
    employeeNumber: row.employee_number,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    departmentIds: JSON.parse(row.department_ids) as string[],
    positionIds: JSON.parse(row.position_ids) as string[],
    employmentStart: row.employment_start,
    employmentEnd: row.employment_end,
    timeclockActive: row.timeclock_active === 1,
    updatedAt: formatInstant(row.updated_at, timezone),
  };
}

/** Sort key of the listing (employeeNumber, then id): the columns the query orders by. */
export function userPosition(row: UserRow): SortKey {
  return [row.employee_number, row.id];
}
