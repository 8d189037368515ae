// The stored side of a batch: reading the figures its keys can match, and the upsert of the changed
// ones. Set-based on both databases, whatever the batch size.
//
// On PostgreSQL the values travel as one array per column (`unnest`, `= any`) instead of one
// parameter per value: planning a 1,000-row VALUES list of 15,000 parameters took ~20 ms per
// statement there (measured: bind 15–27 ms, execute 17 ms), more than storing the rows. SQLite has no
// arrays and plans parameters for free, so it keeps multi-row statements.
import { sql, type Expression, type ExpressionBuilder, type InsertQueryBuilder, type InsertResult, type Kysely, type Transaction } from 'kysely';
import { compiledRows } from '../platform/db/compiled-once.ts';
import type { Database } from '../platform/db/schema.ts';
import type { InboundItemsTable, InboundStream } from './tables.ts';
import type { ItemPeriod } from './periods.ts';
import { newId } from '../platform/ids.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Values listed per statement (IN lists) on SQLite. */
const CHUNK = 1000;
/**
 * Rows per multi-row insert on SQLite, which runs on the event loop: a 1,000-row upsert held it for
 * ~40 ms; this many take a few, and the loop gets a turn between statements (CONTRACT §4: 50 ms).
 */
const WRITE_CHUNK = 250;

export interface StoredValues {
  amountMinor: number;
  hoursCenti: number | null;
}

/** A validated figure, ready to store. */
export interface FigureDraft extends StoredValues {
  departmentId: string;
  period: ItemPeriod;
  kind: string;
  category: string;
  /** The upsert key (figureKey). */
  key: string;
}

export function figureKey(departmentId: string, periodKey: string, kind: string, category: string): string {
  // Only the last part (category) is free text; the others never contain NUL, so no two keys collide.
  return `${departmentId}\u0000${periodKey}\u0000${kind}\u0000${category}`;
}

type ItemsWhere = ExpressionBuilder<Database, 'inbound_items'>;
type TextColumn = 'period_key' | 'department_id' | 'kind' | 'category';

/** `column IN (…)` on SQLite; `column = any($1)` with one array parameter on PostgreSQL. */
function oneOf(onPostgres: boolean, column: TextColumn, values: string[]) {
  return (eb: ItemsWhere) => (onPostgres ? eb(column, '=', eb.fn.any(eb.val(values))) : eb(column, 'in', values));
}

/**
 * The stored figures the drafts could touch, by key. The query narrows on every key column whose
 * distinct values are few enough to list (they usually are: a batch spans few departments, kinds
 * and categories), so it reads about the batch's own rows, not everything else on those days.
 */
export async function existingFigures(trx: Transaction<Database>, onPostgres: boolean, companyId: string, stream: InboundStream, drafts: FigureDraft[]): Promise<Map<string, StoredValues>> {
  const distinct = (pick: (draft: FigureDraft) => string) => [...new Set(drafts.map(pick))];
  const listable = (values: string[]) => (values.length <= CHUNK ? values : undefined);
  const periodKeys = distinct((d) => d.period.key);
  const narrowing: Array<[TextColumn, string[] | undefined]> = [
    ['department_id', listable(distinct((d) => d.departmentId))],
    ['kind', listable(distinct((d) => d.kind))],
    ['category', listable(distinct((d) => d.category))],
  ];
  const existing = new Map<string, StoredValues>();
  const step = onPostgres ? periodKeys.length || 1 : CHUNK;
  for (let i = 0; i < periodKeys.length; i += step) {
    let query = trx
      .selectFrom('inbound_items')
      .select(['department_id', 'period_key', 'kind', 'category', 'amount_minor', 'hours_centi'])
      .where('company_id', '=', companyId)
      .where('stream', '=', stream)
      .where(oneOf(onPostgres, 'period_key', periodKeys.slice(i, i + step)));
    for (const [column, values] of narrowing) if (values) query = query.where(oneOf(onPostgres, column, values));
    if (i > 0) await nextTurn();
    for (const row of await query.execute()) {
      existing.set(figureKey(row.department_id, row.period_key, row.kind, row.category), { amountMinor: Number(row.amount_minor), hoursCenti: row.hours_centi === null ? null : Number(row.hours_centi) });
    }
  }
  return existing;
}

// The PostgreSQL type of each column, for the arrays `unnest` reads.
const COLUMN_TYPES: Record<keyof InboundItemsTable, 'text' | 'bigint'> = {
  id: 'text',
  company_id: 'text',
  stream: 'text',
  department_id: 'text',
  date: 'text',
  week: 'text',
  period_key: 'text',
  period_start: 'text',
  period_end: 'text',
  kind: 'text',
  category: 'text',
  amount_minor: 'bigint',
  hours_centi: 'bigint',
  created_at: 'bigint',
  updated_at: 'bigint',
};
const COLUMNS = Object.keys(COLUMN_TYPES) as Array<keyof InboundItemsTable>;

/** The rows as one array per column, zipped back into rows by PostgreSQL's `unnest`. */
function unnestedRows(rows: InboundItemsTable[]): Expression<InboundItemsTable> {
  const arrays = COLUMNS.map((column) => sql`${rows.map((row) => row[column])}::${sql.raw(COLUMN_TYPES[column])}[]`);
  return sql<InboundItemsTable>`select * from unnest(${sql.join(arrays)})`;
}

function figureRow(companyId: string, stream: InboundStream, draft: FigureDraft, now: number): InboundItemsTable {
  return {
    id: newId('fig', now),
    company_id: companyId,
    stream,
    department_id: draft.departmentId,
    date: draft.period.date,
    week: draft.period.week,
    period_key: draft.period.key,
    period_start: draft.period.start,
    period_end: draft.period.end,
    kind: draft.kind,
    category: draft.category,
    amount_minor: draft.amountMinor,
    hours_centi: draft.hoursCenti,
    created_at: now,
    updated_at: now,
  };
}

/** The upsert of figures by their key, answering every row as stored. */
function upsertFigures(insert: InsertQueryBuilder<Database, 'inbound_items', InsertResult>) {
  return insert
    .onConflict((oc) =>
      oc.columns(['company_id', 'stream', 'period_key', 'department_id', 'kind', 'category']).doUpdateSet((eb) => ({
        amount_minor: eb.ref('excluded.amount_minor'),
        hours_centi: eb.ref('excluded.hours_centi'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll();
}

/** SQLite: the multi-row upsert compiled once per row count (building it took longer than SQLite took to run it). */
const sqliteUpsert = compiledRows((db: Kysely<Database>, rows: InboundItemsTable[]) => upsertFigures(db.insertInto('inbound_items').values(rows)));

/** A figure as the upsert left it, and whether the upsert created it. */
export interface WrittenFigure {
  row: InboundItemsTable;
  created: boolean;
}

/**
 * Inserts the new figures and updates the changed ones, in the drafts' order, and returns them as
 * stored. A row that appeared since the read (a concurrent batch) is updated, not duplicated (and
 * reported as not created: it keeps the other batch's id).
 */
export async function writeFigures(trx: Transaction<Database>, onPostgres: boolean, companyId: string, stream: InboundStream, drafts: FigureDraft[], now: number): Promise<WrittenFigure[]> {
  const step = onPostgres ? drafts.length || 1 : WRITE_CHUNK;
  const written: WrittenFigure[] = [];
  for (let i = 0; i < drafts.length; i += step) {
    if (i > 0) await nextTurn();
    const rows = drafts.slice(i, i + step).map((draft) => figureRow(companyId, stream, draft, now));
    const newIds = new Set(rows.map((row) => row.id));
    const upsert = onPostgres ? upsertFigures(trx.insertInto('inbound_items').columns(COLUMNS).expression(unnestedRows(rows))) : sqliteUpsert(trx, rows);
    const stored = (await trx.executeQuery(upsert)).rows;
    for (const row of stored) written.push({ row: { ...row, amount_minor: Number(row.amount_minor), hours_centi: row.hours_centi === null ? null : Number(row.hours_centi) }, created: newIds.has(row.id) });
  }
  return written;
}
