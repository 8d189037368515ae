// Reading the change log of CONTRACT §7 (src/changes/change-log.ts records it): the changes after a
// position, for the delta endpoint and the webhooks dispatcher, and those of a period, for a replay.
//
// Reading is safe by construction: on PostgreSQL only changes up to the watermark (watermark.ts) are
// returned, so no change can commit later with a seq below one already handed out; SQLite has one
// writer at a time, so its seq order is commit order. docs/changes.md gives the proof.
import { sql, type Selectable } from 'kysely';
import { sqliteHandleOf, type Db } from '../platform/db/database.ts';
import { watermarkOf } from './watermark.ts';
import type { CompanyChangesTable } from './tables.ts';
import type { Change, ChangeResourceType } from './change-log.ts';

/** The stable id of the change with this seq (also the webhook-id of its messages). */
export function changeId(seq: number): string {
  return `chg_${seq}`;
}

function present(row: Selectable<CompanyChangesTable>): Change {
  const [resourceType] = row.type.split('.') as [ChangeResourceType];
  return {
    seq: Number(row.seq),
    id: changeId(Number(row.seq)),
    type: row.type,
    resourceType,
    resourceId: row.resource_id,
    occurredAt: row.occurred_at,
    deleted: row.data === null,
    data: row.data === null ? null : JSON.parse(row.data),
  };
}

/**
 * The highest seq that is safe to read now: every change with a seq up to it has committed or
 * aborted. Pass the database handle (or a READ COMMITTED transaction): the rows read after this call
 * must come from a newer snapshot.
 */
export async function readableSeq(db: Db): Promise<number> {
  if (sqliteHandleOf(db)) {
    // AUTOINCREMENT's counter: it keeps the highest seq ever given, even once pruning removed it.
    const row = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'company_changes'`.execute(db);
    return Number(row.rows[0]?.seq ?? 0);
  }
  return watermarkOf(db).current();
}

/** Whether some change may still become readable soon (a waiting reader should look again). */
export function watermarkBehind(db: Db): boolean {
  return !sqliteHandleOf(db) && watermarkOf(db).behind;
}

export interface ReadOptions {
  afterSeq: number;
  limit: number;
  /** Change types (`shift.deleted`, …) to keep; all when absent or empty. */
  types?: readonly string[];
}

/** Reads up to `limit` rows after `afterSeq`, up to `throughSeq`, in seq order. */
async function readRows(db: Db, companyId: string, options: ReadOptions, throughSeq: number): Promise<Change[]> {
  let query = db
    .selectFrom('company_changes')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('seq', '>', options.afterSeq)
    .where('seq', '<=', throughSeq);
  if (options.types && options.types.length > 0) query = query.where('type', 'in', [...options.types]);
  const rows = await query.orderBy('seq').limit(options.limit).execute();
  return rows.map(present);
}

/** A page of changes and how far it read: `throughSeq` is where a reader resumes when the page is not full. */
export interface ChangeWindow {
  changes: Change[];
  /** The readable seq the page was read against: nothing of this company up to it is left unread once the page is not full. */
  throughSeq: number;
}

/**
 * Changes of one company after `afterSeq`, in seq order, only those safe to read (below the watermark:
 * no later commit can appear with a smaller seq), and up to which seq the company's log has been read.
 */
export async function readChangeWindow(db: Db, companyId: string, options: ReadOptions): Promise<ChangeWindow> {
  const throughSeq = await readableSeq(db);
  return { changes: await readRows(db, companyId, options, throughSeq), throughSeq };
}

export interface PeriodOptions {
  /** ISO 8601 instants (any offset): from inclusive, to exclusive. */
  fromInstant: string;
  toInstant: string;
  types?: readonly string[];
  /** Only changes with a greater seq: where the previous page ended (paging a long period). */
  afterSeq?: number;
  limit?: number;
}

function periodQuery(db: Db, companyId: string, options: PeriodOptions, throughSeq: number) {
  let query = db
    .selectFrom('company_changes')
    .where('company_id', '=', companyId)
    .where('seq', '<=', throughSeq)
    .where('seq', '>', options.afterSeq ?? 0)
    .where('recorded_at', '>=', Date.parse(options.fromInstant))
    .where('recorded_at', '<', Date.parse(options.toInstant));
  if (options.types && options.types.length > 0) query = query.where('type', 'in', [...options.types]);
  return query;
}

/**
 * The readable changes of one company recorded in [fromInstant, toInstant), in seq order (for a
 * webhook replay of a period), a page of `limit` after `afterSeq` when given. Bounded by the
 * retention, like every read of the log.
 */
export async function changesBetween(db: Db, companyId: string, options: PeriodOptions): Promise<Change[]> {
  let query = periodQuery(db, companyId, options, await readableSeq(db)).selectAll().orderBy('seq');
  if (options.limit !== undefined) query = query.limit(options.limit);
  return (await query.execute()).map(present);
}

/** Whether the period holds more than `count` readable changes: looks at `count` + 1 rows at most, reads one. */
export async function periodHoldsMoreThan(db: Db, companyId: string, options: PeriodOptions, count: number): Promise<boolean> {
  const beyond = await periodQuery(db, companyId, options, await readableSeq(db)).select('seq').orderBy('seq').limit(1).offset(count).executeTakeFirst();
  return beyond !== undefined;
}
