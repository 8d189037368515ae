// Wage-budget figures (createWageBudget): an amount, and optionally hours, per department and day or
// week. Upsert key: department and period.
import { Type, type Static } from 'typebox';
import type { FieldError } from '../platform/errors.ts';
import { readHundredths, type StreamRules } from './batch.ts';
import { fromHundredths } from './decimal.ts';
import { orNull } from '../platform/schemas.ts';
import { DECIMAL_FORMS, FigureInputFields, FigureItem, presentFigure, type FigureRow } from './figures.ts';

export const WageBudgetItemInput = Type.Object(
  {
    ...FigureInputFields,
    amount: Type.Number({ minimum: 0, description: `In the company currency, ≥ 0, at most 2 decimals, at most 10^13. ${DECIMAL_FORMS}` }),
    hours: orNull(Type.Number({ minimum: 0 }), 'Budgeted hours, ≥ 0, at most 2 decimals, judged on its JSON text like `amount`.'),
  },
  { additionalProperties: false },
);
export type WageBudgetItemInput = Static<typeof WageBudgetItemInput>;

export const WageBudgetItem = FigureItem({
  amount: Type.Number(),
  hours: Type.Union([Type.Number(), Type.Null()]),
});
export type WageBudgetItem = Static<typeof WageBudgetItem>;

export const wageBudgetRules: StreamRules<WageBudgetItemInput> = {
  stream: 'wage_budget',
  input: WageBudgetItemInput,
  resourceType: 'wage_budget_item',
  present: (row, timezone) => presentWageBudget(row, timezone),
  keyFields: 'department and date or week',
  values(item: WageBudgetItemInput, path: string, errors: FieldError[]) {
    const amountMinor = readHundredths(item, 'amount', item.amount, path, errors, { min: 0 });
    const hoursCenti = item.hours == null ? null : readHundredths(item, 'hours', item.hours, path, errors, { min: 0 });
    if (amountMinor === undefined || hoursCenti === undefined) return undefined;
    return { kind: '', category: '', amountMinor, hoursCenti };
  },
};

export function presentWageBudget(row: FigureRow, timezone: string): WageBudgetItem {
  return presentFigure(row, timezone, {
    amount: fromHundredths(row.amount_minor),
    hours: row.hours_centi === null ? null : fromHundredths(row.hours_centi),
  });
}
