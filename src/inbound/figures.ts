// Shapes shared by both inbound streams: the batch outcome, the read-back query and the listing of
// stored figures by period (a week figure is included when its week overlaps the period).
import { Type, type TProperties } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import type { Period } from '../platform/period.ts';
import { addDays } from '../platform/period.ts';
import { afterPosition, type SortKey } from '../platform/collection.ts';
import type { Listing } from '../platform/paged-collection.ts';
import type { InboundStream } from './tables.ts';
import { orNull, PATTERNS } from '../platform/schemas.ts';
import { formatInstant } from '../platform/local-time.ts';

export const BatchOutcome = Type.Object({
  received: Type.Integer({ description: 'Items in the batch.' }),
  created: Type.Integer({ description: 'Items stored for the first time.' }),
  updated: Type.Integer({ description: 'Items whose stored values changed.' }),
  unchanged: Type.Integer({ description: 'Items already stored with the same values.' }),
});

/**
 * How an amount or hours value is read (decimal.ts), for the OpenAPI descriptions: judged on the JSON
 * text as sent, never on the double a parser would make of it.
 */
export const DECIMAL_FORMS =
  'Judged on its JSON text, never through a float: a JSON number (not a string) written as an integer (`12`), with a fraction (`12.5`, `12.50`) ' +
  'or with an exponent (`1250e-2`, `1.25E1`); trailing zeros never count (`1.500` is `1.5`), but a third non-zero decimal anywhere is refused, ' +
  'even one a double would round away (`1.0000000000000001`). An exponent beyond ±30 is out of range.';

/** The fields every input item of both streams starts with: where and when the figure applies. */
export const FigureInputFields = {
  departmentId: Type.String({ minLength: 1, maxLength: 100, description: 'A department id from getConfiguration.' }),
  date: orNull(Type.String({ pattern: PATTERNS.boundedDate.pattern }), 'Day (YYYY-MM-DD, company time zone), from 2000-01-01 to 2099-12-31. Exactly one of date and week.'),
  week: orNull(Type.String({ pattern: PATTERNS.boundedIsoWeek.pattern }), 'ISO week (YYYY-Www, e.g. 2026-W47, Monday to Sunday) of the years 2000 to 2099. Exactly one of date and week.'),
};

/** A stored item of a stream as read back: the shared fields around the stream's own `fields`. */
export function FigureItem<Fields extends TProperties>(fields: Fields) {
  return Type.Object({
    id: Type.String(),
    departmentId: Type.String(),
    date: Type.Union([Type.String(), Type.Null()]),
    week: Type.Union([Type.String(), Type.Null()]),
    ...fields,
    updatedAt: Type.String({ description: 'Instant of the last change, in the company offset.' }),
  });
}

export interface FigureFilter extends Period {
  departmentId?: string;
  kind?: string;
}

export interface FigureRow {
  id: string;
  department_id: string;
  date: string | null;
  week: string | null;
  kind: string;
  category: string;
  amount_minor: number;
  hours_centi: number | null;
  period_start: string;
  updated_at: number;
}

/** A stored figure as its stream shows it: the shared fields around the stream's own `values`. */
export function presentFigure<Values extends object>(row: FigureRow, timezone: string, values: Values) {
  return { id: row.id, departmentId: row.department_id, date: row.date, week: row.week, ...values, updatedAt: formatInstant(row.updated_at, timezone) };
}

/**
 * The stream's figures overlapping the period as a paged listing, ordered by the first day of the
 * figure's period, then its id; each shown by `present`.
 */
export function figureListing<Item>(db: Db, companyId: string, stream: InboundStream, filter: FigureFilter, present: (row: FigureRow) => Item): Listing<FigureRow, Item> {
  return { rows: (count, after) => listFigures(db, companyId, stream, filter, count, after), position: (row) => [row.period_start, row.id], present };
}

/** Up to `count` figures overlapping the period, after the position when given. */
async function listFigures(db: Db, companyId: string, stream: InboundStream, filter: FigureFilter, count: number, after: SortKey | undefined): Promise<FigureRow[]> {
  let query = db
    .selectFrom('inbound_items')
    .select(['id', 'department_id', 'date', 'week', 'kind', 'category', 'amount_minor', 'hours_centi', 'period_start', 'updated_at'])
    .where('company_id', '=', companyId)
    .where('stream', '=', stream)
    // A period is at most a week long, so this lower bound keeps the index range tight.
    .where('period_start', '>=', addDays(filter.from, -6))
    .where('period_start', '<=', filter.to)
    .where('period_end', '>=', filter.from);
  if (filter.departmentId !== undefined) query = query.where('department_id', '=', filter.departmentId);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (after) query = query.where(afterPosition(['period_start', 'id'], after));
  const rows = await query.orderBy('period_start').orderBy('id').limit(count).execute();
  return rows.map((row) => ({ ...row, amount_minor: Number(row.amount_minor), hours_centi: row.hours_centi === null ? null : Number(row.hours_centi) }));
}
