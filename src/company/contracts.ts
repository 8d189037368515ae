// getCompanyContracts: contracts overlapping the period (by default: active today).
import { Type, type Static } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import { afterPosition, type SortKey } from '../platform/collection.ts';
import type { Period } from '../platform/period.ts';
import { overlapsPeriod } from './date-range.ts';
import { formatInstant } from '../platform/local-time.ts';
import type { ContractsTable } from './tables.ts';

export const Contract = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  contractTypeId: Type.String(),
  startDate: Type.String({ format: 'date' }),
  endDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'Last day; null while open.' }),
  hoursPerWeek: Type.Number(),
  daysPerWeek: Type.Number(),
  wage: Type.Object({
    amount: Type.Number({ description: 'Decimal amount, e.g. 15.25' }),
    currency: Type.String({ description: 'ISO 4217' }),
    period: Type.Union([Type.Literal('hour'), Type.Literal('month')]),
  }),
  departmentId: Type.Union([Type.String(), Type.Null()]),
  positionId: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type Contract = Static<typeof Contract>;

/** Contracts overlapping `period`, after the keyset position, in page order. */
export function contractsQuery(db: Db, companyId: string, period: Period, after: SortKey | undefined) {
  let query = db
    .selectFrom('contracts')
    .selectAll()
    .where('company_id', '=', companyId)
    .where(overlapsPeriod('start_date', 'end_date', period));
  if (after) query = query.where(afterPosition(['start_date', 'id'], after));
  return query.orderBy('start_date').orderBy('id');
}

export function presentContract(row: ContractsTable, timezone: string): Contract {
  return {
    id: row.id,
    userId: row.employee_id,
    contractTypeId: row.contract_type_id,
    startDate: row.start_date,
    endDate: row.end_date,
    hoursPerWeek: row.hours_per_week_centi / 100,
    daysPerWeek: row.days_per_week_centi / 100,
    wage: { amount: row.wage_minor / 100, currency: row.wage_currency, period: row.wage_period as Contract['wage']['period'] },
    departmentId: row.department_id,
    positionId: row.position_id,
    updatedAt: formatInstant(row.updated_at, timezone),
  };
}

/** Sort key of the listing (startDate, then id): the columns the query orders by. */
export function contractPosition(row: ContractsTable): SortKey {
  return [row.start_date, row.id];
}
