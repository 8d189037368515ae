// Revenue figures (createRevenue): realised revenue or a prognosis per department and day or week,
// optionally split by a free-text category. Upsert key: department, period, kind, category.
import { Type, type Static } from 'typebox';
import type { FieldError } from '../platform/errors.ts';
import { readHundredths, type StreamRules } from './batch.ts';
import { fromHundredths } from './decimal.ts';
import { orNull } from '../platform/schemas.ts';
import { DECIMAL_FORMS, FigureInputFields, FigureItem, presentFigure, type FigureRow } from './figures.ts';

export const RevenueKind = Type.Enum(['realised', 'prognosis'], { description: '`realised` revenue, or a `prognosis`.' });

export const RevenueItemInput = Type.Object(
  {
    ...FigureInputFields,
    kind: RevenueKind,
    amount: Type.Number({ description: `In the company currency, at most 2 decimals and at most 10^13 in absolute value; negative for refunds. ${DECIMAL_FORMS}` }),
    category: orNull(Type.String({ minLength: 1, maxLength: 100 }), 'Optional split of the revenue (e.g. "food"); part of the upsert key.'),
  },
  { additionalProperties: false },
);
export type RevenueItemInput = Static<typeof RevenueItemInput>;

export const RevenueItem = FigureItem({
  kind: RevenueKind,
  category: Type.Union([Type.String(), Type.Null()]),
  amount: Type.Number(),
});
export type RevenueItem = Static<typeof RevenueItem>;

export const revenueRules: StreamRules<RevenueItemInput> = {
  stream: 'revenue',
  input: RevenueItemInput,
  resourceType: 'revenue_item',
  present: (row, timezone) => presentRevenue(row, timezone),
  keyFields: 'department, date or week, kind and category',
  values(item: RevenueItemInput, path: string, errors: FieldError[]) {
    const amountMinor = readHundredths(item, 'amount', item.amount, path, errors);
    if (amountMinor === undefined) return undefined;
    return { kind: item.kind, category: item.category ?? '', amountMinor, hoursCenti: null };
  },
};

export function presentRevenue(row: FigureRow, timezone: string): RevenueItem {
  return presentFigure(row, timezone, {
    kind: row.kind as RevenueItem['kind'],
    category: row.category === '' ? null : row.category,
    amount: fromHundredths(row.amount_minor),
  });
}
