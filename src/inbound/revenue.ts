// Revenue figures (createRevenue): realised revenue or a prognosis per department and day or week,
// optionally split by a free-text category. Upsert key: department, period, kind, category.
import { Type, type Static } from 'typebox';
import { formatInstant } from '../company/local-time.ts';
import type { FieldError } from '../platform/errors.ts';
import { readHundredths, type StreamRules } from './batch.ts';
import { fromHundredths } from './decimal.ts';
import { orNull } from './schemas.ts';
import { DepartmentId, ItemDate, ItemWeek, type FigureRow } from './figures.ts';

export const RevenueKind = Type.Enum(['realised', 'prognosis'], { description: '`realised` revenue, or a `prognosis`.' });

export const RevenueItemInput = Type.Object(
  {
    departmentId: DepartmentId,
    date: ItemDate,
    week: ItemWeek,
    kind: RevenueKind,
    amount: Type.Number({ description: 'In the company currency, at most 2 decimals; negative for refunds.' }),
    category: orNull(Type.String({ minLength: 1, maxLength: 100 }), 'Optional split of the revenue (e.g. "food"); part of the upsert key.'),
  },
  { additionalProperties: false },
);
export type RevenueItemInput = Static<typeof RevenueItemInput>;

export const RevenueItem = Type.Object({
  id: Type.String(),
  departmentId: Type.String(),
  date: Type.Union([Type.String(), Type.Null()]),
  week: Type.Union([Type.String(), Type.Null()]),
  kind: RevenueKind,
  category: Type.Union([Type.String(), Type.Null()]),
  amount: Type.Number(),
  updatedAt: Type.String({ description: 'Instant of the last change, in the company offset.' }),
});
export type RevenueItem = Static<typeof RevenueItem>;

export const revenueRules: StreamRules<RevenueItemInput> = {
  stream: 'revenue',
  keyFields: 'department, date or week, kind and category',
  values(item: RevenueItemInput, path: string, errors: FieldError[]) {
    const amountMinor = readHundredths(item, 'amount', item.amount, path, errors);
    if (amountMinor === undefined) return undefined;
    return { kind: item.kind, category: item.category ?? '', amountMinor, hoursCenti: null };
  },
};

export function presentRevenue(row: FigureRow, timezone: string): RevenueItem {
  return {
    id: row.id,
    departmentId: row.department_id,
    date: row.date,
    week: row.week,
    kind: row.kind as RevenueItem['kind'],
    category: row.category === '' ? null : row.category,
    amount: fromHundredths(row.amount_minor),
    updatedAt: formatInstant(row.updated_at, timezone),
  };
}
