// The stored side of a batch: one upsert by key that writes only what is new or changed and answers
// what it wrote. No read of the rows before the write: the database compares each item with the
// stored one (`ON CONFLICT DO UPDATE … WHERE` the values differ), so a batch is one statement on
// PostgreSQL and a few on SQLite, and a re-sent batch writes nothing. (On PostgreSQL a batch of new
// keys is a plain insert instead: insertedAsNew below; on SQLite each chunk of new keys is.)
//
// On PostgreSQL the values travel as one array per column (`unnest`) instead of one parameter per
// value: planning a 1,000-row VALUES list of 15,000 parameters took ~20 ms per statement there
// (measured: bind 15–27 ms, execute 17 ms), more than storing the rows. The arrays are written as
// literals here (array-literal.ts), and the columns the whole batch shares are sent once. SQLite has no arrays and
// plans parameters for free, so it keeps multi-row statements.
import { CompiledQuery, sql, type Expression, type InsertQueryBuilder, type InsertResult, type Kysely, type QueryResult, type Transaction } from 'kysely';
import { compiledRows } from '../platform/db/compiled-once.ts';
import type { Database } from '../platform/db/schema.ts';
import type { InboundItemsTable, InboundStream } from './tables.ts';
import type { ItemPeriod } from './periods.ts';
import type { FigureRow } from './figures.ts';
import { newId } from '../platform/ids.ts';
import { integerArray, textArray } from '../platform/db/array-literal.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Rows per multi-row upsert on SQLite, which runs on the event loop: a 1,000-row upsert held it for
 * ~40 ms; this many take a few, and the loop gets a turn between statements (CONTRACT §4: 50 ms).
 */
const WRITE_CHUNK = 250;

/** A validated figure, ready to store. */
export interface FigureDraft {
  departmentId: string;
  period: ItemPeriod;
  kind: string;
  category: string;
  amountMinor: number;
  hoursCenti: number | null;
  /** The upsert key (figureKey). */
  key: string;
}

export function figureKey(departmentId: string, periodKey: string, kind: string, category: string): string {
  // Only the last part (category) is free text; the others never contain NUL, so no two keys collide.
  // Period first, as in the unique and period indexes: drafts sorted by this key are written in index
  // order, so each index page is visited once (department first scattered the writes over every page
  // of the range: a 5,000-item batch of new keys cost SQLite ~25 % more CPU; docs/benchmarks.md).
  return `${periodKey}\u0000${departmentId}\u0000${kind}\u0000${category}`;
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

/** Columns every row of one statement shares (figureRow): sent once, not as an array. */
const BATCH_WIDE = new Set<keyof InboundItemsTable>(['company_id', 'stream', 'created_at', 'updated_at']);

function arrayOf(rows: InboundItemsTable[], column: keyof InboundItemsTable) {
  return COLUMN_TYPES[column] === 'bigint'
    ? sql`${integerArray(rows.map((row) => row[column] as number | null))}::bigint[]`
    : sql`${textArray(rows.map((row) => row[column] as string | null))}::text[]`;
}

/**
 * The rows (at least one) as one array per varying column, zipped back into rows by PostgreSQL's
 * `unnest`, in COLUMNS order; the batch-wide columns as single values. The unnests stand in the select
 * list, where set-returning functions advance together, an element of each per row (ProjectSet); in
 * FROM (`from unnest(a, b, …)`) a FunctionScan first copied all the rows into a tuplestore and read
 * them back: the insert of 5,000 new figures took 45–47 → 40 ms of PostgreSQL's CPU this way
 * (docs/benchmarks.md, "Revenue batches", session 11). Every array has one element per row, so none
 * is padded with nulls.
 */
function unnestedRows(rows: InboundItemsTable[]): Expression<InboundItemsTable> {
  const first = rows[0] as InboundItemsTable;
  const selected = COLUMNS.map((column) => (BATCH_WIDE.has(column) ? sql`${first[column]}::${sql.raw(COLUMN_TYPES[column])}` : sql`unnest(${arrayOf(rows, column)})`));
  return sql<InboundItemsTable>`select ${sql.join(selected)}`;
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

/** The columns of the upsert key (the unique index `inbound_items_key`), in its order. */
const KEY_COLUMNS = ['company_id', 'stream', 'period_key', 'department_id', 'kind', 'category'] as const;

/**
 * The upsert of figures by their key: a stored figure is updated only when its values differ, and
 * only the rows inserted or updated are answered — with their key, to find their draft, since the
 * order of `returning` is not defined. `notSame` is the null-safe "differs" of the dialect.
 */
function upsertChanged(insert: InsertQueryBuilder<Database, 'inbound_items', InsertResult>, notSame: 'is distinct from' | 'is not') {
  return insert
    .onConflict((oc) =>
      oc
        .columns([...KEY_COLUMNS])
        .doUpdateSet((eb) => ({
          amount_minor: eb.ref('excluded.amount_minor'),
          hours_centi: eb.ref('excluded.hours_centi'),
          updated_at: eb.ref('excluded.updated_at'),
        }))
        .where((eb) => eb.or([eb('inbound_items.amount_minor', '<>', eb.ref('excluded.amount_minor')), eb('inbound_items.hours_centi', notSame, eb.ref('excluded.hours_centi'))])),
    )
    .returning(['id', 'department_id', 'period_key', 'kind', 'category']);
}

/** SQLite: the multi-row upsert compiled once per row count (building it took longer than SQLite took to run it). */
const sqliteUpsert = compiledRows((db: Kysely<Database>, rows: InboundItemsTable[]) => upsertChanged(db.insertInto('inbound_items').values(rows), 'is not'));

/** A figure the upsert created or changed, as now stored, and whether it created it. */
export interface WrittenFigure {
  row: FigureRow;
  created: boolean;
}

type StoredKey = Pick<InboundItemsTable, 'id' | 'department_id' | 'period_key' | 'kind' | 'category'>;

function sameKey(row: InboundItemsTable, stored: StoredKey): boolean {
  return row.period_key === stored.period_key && row.department_id === stored.department_id && row.kind === stored.kind && row.category === stored.category;
}

function writtenFigure(row: InboundItemsTable, id: string): WrittenFigure {
  return id === row.id ? { row, created: true } : { row: { ...row, id }, created: false };
}

/**
 * The figures of `rows` that the upsert answered (`rows` and `drafts` from `from` on are the same
 * figures), in their order. `returning` has no defined order, so each answer is matched to its row by
 * key; both databases do answer in the rows' order, so the rows are walked along the answer first,
 * comparing fields, and only an answer out of that order makes the keys of a look-up table (that
 * table and a copy of every row were ~5 % of the service's CPU in a profile of SQLite batches).
 */
export function writtenFigures(rows: InboundItemsTable[], drafts: FigureDraft[], from: number, answer: QueryResult<StoredKey>): WrittenFigure[] {
  const written: WrittenFigure[] = [];
  let next = 0;
  for (const stored of answer.rows) {
    while (next < rows.length && !sameKey(rows[next] as InboundItemsTable, stored)) next += 1;
    if (next === rows.length) return writtenByKey(rows, drafts, from, answer);
    written.push(writtenFigure(rows[next] as InboundItemsTable, stored.id));
    next += 1;
  }
  return written;
}

function writtenByKey(rows: InboundItemsTable[], drafts: FigureDraft[], from: number, answer: QueryResult<StoredKey>): WrittenFigure[] {
  const storedIds = new Map(answer.rows.map((stored) => [figureKey(stored.department_id, stored.period_key, stored.kind, stored.category), stored.id]));
  const written: WrittenFigure[] = [];
  rows.forEach((row, index) => {
    const id = storedIds.get((drafts[from + index] as FigureDraft).key);
    if (id !== undefined) written.push(writtenFigure(row, id));
  });
  return written;
}

// New keys: a plain INSERT instead of the upsert, which checks every row against the key index
// before inserting it and answers what it wrote. On PostgreSQL `ON CONFLICT` inserts each row
// speculatively — a probe of the key index, then a second WAL record per row to confirm it — ~25 % of
// the statement for 5,000 new rows (docs/benchmarks.md, "Revenue batches", session 9); on SQLite the
// upsert's conflict handling and its answer (every row written, then an object of five strings
// each) were ~20 % of the statements' CPU (session 10). Whether rows are new is only guessed; a stored key among them (stored before, or
// on PostgreSQL by a concurrent batch, whose commit the insert waits for) fails the insert on the key
// index, which writes nothing, and the upsert stores the rows instead.
//
// PostgreSQL, one statement per batch: the guess is the batch's first and last keys (one index probe
// each), and the insert runs in a savepoint, so a failed one is undone.
const SAVEPOINT = CompiledQuery.raw('savepoint new_figures');
const ROLLBACK_TO_SAVEPOINT = CompiledQuery.raw('rollback to savepoint new_figures');
const RELEASE_SAVEPOINT = CompiledQuery.raw('release savepoint new_figures');

/** SQLite names the columns of the unique index a row broke; these are `inbound_items_key`'s. */
const SQLITE_KEY_VIOLATION = `UNIQUE constraint failed: ${KEY_COLUMNS.map((column) => `inbound_items.${column}`).join(', ')}`;

function storedKeyViolation(error: unknown): boolean {
  const { code, constraint, errcode, message } = error as { code?: unknown; constraint?: unknown; errcode?: unknown; message?: unknown };
  // PostgreSQL's unique_violation; SQLite's SQLITE_CONSTRAINT_UNIQUE.
  return (code === '23505' && constraint === 'inbound_items_key') || (errcode === 2067 && message === SQLITE_KEY_VIOLATION);
}

/**
 * The look-up of endsStored: any of the first and the last of the rows (sorted by key), each asked
 * for alone, joined by UNION ALL, naming the figure's first day as well as its key (the day follows
 * from the key), so that whichever index the planner picks reads one period of the company's figures
 * at most. Asked as one OR of the two keys, PostgreSQL scanned the key index on the columns both keys
 * share (company, stream, and in the bench the category, the index's last column); asked by key
 * alone on a table without statistics yet (a new database), it scanned the period index on company
 * and stream: either way the company's whole range, 5–20 ms at 25,000–60,000 figures and growing
 * with them (docs/benchmarks.md, "Revenue batches", session 11).
 */
export function storedEndsQuery(db: Kysely<Database>, rows: readonly InboundItemsTable[]) {
  const stored = (row: InboundItemsTable) =>
    db
      .selectFrom('inbound_items')
      .select('id')
      .where((eb) => eb.and({ company_id: row.company_id, stream: row.stream, period_start: row.period_start, period_key: row.period_key, department_id: row.department_id, kind: row.kind, category: row.category }));
  return stored(rows[0] as InboundItemsTable).unionAll(stored(rows[rows.length - 1] as InboundItemsTable)).limit(1);
}

/** Whether the first or the last of the rows (sorted by key) is stored already. */
async function endsStored(trx: Transaction<Database>, rows: InboundItemsTable[]): Promise<boolean> {
  return (await storedEndsQuery(trx, rows).execute()).length > 0;
}

/**
 * PostgreSQL: inserts the rows (at least one) when none is stored, and answers what `meanwhile` gave,
 * run while the database inserts them; undefined, having written nothing, when one is stored.
 */
async function insertedAsNew<T>(trx: Transaction<Database>, rows: InboundItemsTable[], meanwhile: () => T): Promise<{ meanwhile: T } | undefined> {
  if (await endsStored(trx, rows)) return undefined;
  await trx.executeQuery(SAVEPOINT);
  // Awaited only after `meanwhile`: settled into a value, so a failure is never an unhandled rejection.
  const insert = trx.insertInto('inbound_items').columns(COLUMNS).expression(unnestedRows(rows)).execute().then(() => undefined, (error: unknown) => ({ error }));
  // Kysely hands the statement to node-postgres through a chain of promises: a turn of the event loop
  // sends it before `meanwhile` holds the thread.
  await nextTurn();
  const made = meanwhile();
  const failed = await insert;
  if (failed) {
    if (!storedKeyViolation(failed.error)) throw failed.error;
    await trx.executeQuery(ROLLBACK_TO_SAVEPOINT);
  }
  await trx.executeQuery(RELEASE_SAVEPOINT);
  return failed ? undefined : { meanwhile: made };
}

// SQLite, a statement per chunk: each chunk is tried as new until one holds a stored key; a failed
// statement undoes only its own rows (SQLite's ABORT), so the chunks inserted before it stay, rightly
// answered as created, and that chunk and the rest go to the upsert. A changed batch's first insert
// fails at its first row; a mixed one wastes at most one chunk's rows.
const sqliteInsert = compiledRows((db: Kysely<Database>, rows: InboundItemsTable[]) => db.insertInto('inbound_items').values(rows));

/** SQLite: inserts the rows when none is stored; false, having written nothing, when one is. */
async function sqliteInsertedAsNew(trx: Transaction<Database>, rows: InboundItemsTable[]): Promise<boolean> {
  try {
    await trx.executeQuery(sqliteInsert(trx, rows).compile());
    return true;
  } catch (error) {
    if (!storedKeyViolation(error)) throw error;
    return false;
  }
}

/** The figures a batch wrote, and what the caller's `prepare` made of them (storeFigures). */
export interface StoredFigures<Prepared> {
  written: WrittenFigure[];
  prepared: Prepared;
}

/**
 * Stores the drafts in their order — inserting the new ones, updating the changed ones, leaving the
 * same ones alone — and returns the written ones as stored, in the drafts' order, with `prepare` of
 * them. A stored figure keeps its id; every other field of its row is the draft's (the key fixes
 * department, date or week, kind and category). A row that a concurrent batch inserted meanwhile is
 * updated, not duplicated. On PostgreSQL `prepare` runs while the database inserts a batch of new keys
 * (the service's work and the database's overlap), and again, for what the upsert wrote, when that
 * insert finds a stored key.
 */
export async function storeFigures<Prepared>(trx: Transaction<Database>, onPostgres: boolean, companyId: string, stream: InboundStream, drafts: FigureDraft[], now: number, prepare: (written: WrittenFigure[]) => Prepared): Promise<StoredFigures<Prepared>> {
  if (!onPostgres) {
    const written = await sqliteStoreFigures(trx, companyId, stream, drafts, now);
    return { written, prepared: prepare(written) };
  }
  if (drafts.length === 0) return { written: [], prepared: prepare([]) };
  const rows = drafts.map((draft) => figureRow(companyId, stream, draft, now));
  const asNew = rows.map((row) => ({ row, created: true }));
  const inserted = await insertedAsNew(trx, rows, () => prepare(asNew));
  if (inserted) return { written: asNew, prepared: inserted.meanwhile };
  const answer = await trx.executeQuery(upsertChanged(trx.insertInto('inbound_items').columns(COLUMNS).expression(unnestedRows(rows)), 'is distinct from').compile());
  const written = writtenFigures(rows, drafts, 0, answer);
  return { written, prepared: prepare(written) };
}

/** SQLite: storeFigures a chunk at a time (WRITE_CHUNK), new keys inserted until a chunk holds a stored one. */
async function sqliteStoreFigures(trx: Transaction<Database>, companyId: string, stream: InboundStream, drafts: FigureDraft[], now: number): Promise<WrittenFigure[]> {
  const written: WrittenFigure[] = [];
  let newSoFar = true;
  for (let from = 0; from < drafts.length; from += WRITE_CHUNK) {
    if (from > 0) await nextTurn();
    const rows = drafts.slice(from, from + WRITE_CHUNK).map((draft) => figureRow(companyId, stream, draft, now));
    newSoFar &&= await sqliteInsertedAsNew(trx, rows);
    if (newSoFar) {
      written.push(...rows.map((row) => ({ row, created: true })));
      continue;
    }
    written.push(...writtenFigures(rows, drafts, from, await trx.executeQuery(sqliteUpsert(trx, rows).compile())));
  }
  return written;
}
