// Wage-budget figures (createWageBudget): an amount, and optionally hours, per department and day or
// week. Upsert key: department and period.
import { Type, type Static } from 'typebox';
import { formatInstant } from '../company/local-time.ts';
import type { FieldError } from '../platform/errors.ts';
import { readHundredths, type StreamRules } from './batch.ts';
import { fromHundredths } from './decimal.ts';
import { orNull } from './schemas.ts';
import { DepartmentId, ItemDate, ItemWeek, type FigureRow } from './figures.ts';

export const WageBudgetItemInput = Type.Object(
  {
    departmentId: DepartmentId,
    date: ItemDate,
    week: ItemWeek,
    amount: Type.Number({ minimum: 0, description: 'In the company currency, ≥ 0, at most 2 decimals.' }),
    hours: orNull(Type.Number({ minimum: 0 }), 'Budgeted hours, ≥ 0, at most 2 decimals.'),
  },
  { additionalProperties: false },
);
export type WageBudgetItemInput = Static<typeof WageBudgetItemInput>;

export const WageBudgetItem = Type.Object({
  id: Type.String(),
  departmentId: Type.String(),
  date: Type.Union([Type.String(), Type.Null()]),
  week: Type.Union([Type.String(), Type.Null()]),
  amount: Type.Number(),
  hours: Type.Union([Type.Number(), Type.Null()]),
  updatedAt: Type.String({ description: 'Instant of the last change, in the company offset.' }),
});
export type WageBudgetItem = Static<typeof WageBudgetItem>;

export const wageBudgetRules: StreamRules<WageBudgetItemInput> = {
  stream: 'wage_budget',
  keyFields: 'department and date or week',
  values(item: WageBudgetItemInput, path: string, errors: FieldError[]) {
    const amountMinor = readHundredths(item, 'amount', item.amount, path, errors, { min: 0 });
    const hoursCenti = item.hours == null ? null : readHundredths(item, 'hours', item.hours, path, errors, { min: 0 });
    if (amountMinor === undefined || hoursCenti === undefined) return undefined;
    return { kind: '', category: '', amountMinor, hoursCenti };
  },
};

export function presentWageBudget(row: FigureRow, timezone: string): WageBudgetItem {
  return {
    id: row.id,
    departmentId: row.department_id,
    date: row.date,
    week: row.week,
    amount: fromHundredths(row.amount_minor),
    hours: row.hours_centi === null ? null : fromHundredths(row.hours_centi),
    updatedAt: formatInstant(row.updated_at, timezone),
  };
}
