// The change log of CONTRACT §7: every change to a company's data, recorded in the transaction of the
// change (read back in seq order by change-reads.ts, for the delta endpoint and the webhooks).
import { sql, type Insertable, type Transaction } from 'kysely';
import { compiledRows } from '../platform/db/compiled-once.ts';
import { onPostgres, type Db } from '../platform/db/database.ts';
import type { Database } from '../platform/db/schema.ts';
import { formatInstant } from '../platform/local-time.ts';
import { pacer } from '../platform/cooperative.ts';
import { runPrepared, type PreparedStatement } from '../platform/db/prepared.ts';
import type { CompanyChangesTable } from './tables.ts';
import { separatedTexts } from '../platform/db/array-literal.ts';
import { powerOfTwoRuns } from '../platform/db/row-runs.ts';

export type ChangeResourceType = 'user' | 'contract' | 'shift' | 'department' | 'position' | 'shift_type' | 'contract_type' | 'revenue_item' | 'wage_budget_item' | 'timeclock_event';
export type ChangeAction = 'created' | 'updated' | 'deleted';

/** The verbs each resource type is logged with (CONTRACT §7). */
const ACTIONS: Record<ChangeResourceType, readonly ChangeAction[]> = {
  user: ['created', 'updated', 'deleted'],
  contract: ['created', 'updated', 'deleted'],
  shift: ['created', 'updated', 'deleted'],
  department: ['created', 'updated', 'deleted'],
  position: ['created', 'updated', 'deleted'],
  shift_type: ['created', 'updated', 'deleted'],
  contract_type: ['created', 'updated', 'deleted'],
  revenue_item: ['created', 'updated'],
  wage_budget_item: ['created', 'updated'],
  timeclock_event: ['created'],
};

/** Every change type, `<resourceType>.<action>`, in a stable order (for validation and the docs). */
export const CHANGE_TYPES: readonly string[] = Object.entries(ACTIONS).flatMap(([resource, actions]) => actions.map((action) => `${resource}.${action}`));

export interface Change {
  seq: number;
  id: string;
  type: string;
  resourceType: ChangeResourceType;
  resourceId: string;
  /** ISO 8601 instant in the company's offset. */
  occurredAt: string;
  deleted: boolean;
  /** The resource as its collection (or read-back) shows it right after the change; null when deleted. */
  data: unknown;
}

export interface NewChange {
  resourceType: ChangeResourceType;
  action: ChangeAction;
  resourceId: string;
  /** The resource as its collection shows it after the change; ignored (stored as null) for a deletion. */
  data: unknown;
}

/** When a group of changes happened: epoch milliseconds and the company's time zone to write it in. */
export interface ChangeTime {
  at: number;
  timezone: string;
}

type Connection = Db | Transaction<Database>;

/** Rows per insert statement on SQLite: 6 parameters a row stays far below its limit. */
const INSERT_CHUNK = 1000;
/** Rows per unnest insert on PostgreSQL: a batch's most, so a batch stays one statement. */
const UNNEST_CHUNK = 5000;

/**
 * Appends `changes` (in this order) inside the caller's transaction, so they commit or vanish with
 * the change itself. The caller announces them (announceChanges) once its transaction has committed.
 */
export async function recordChanges(trx: Connection, companyId: string, changes: readonly NewChange[], time: ChangeTime): Promise<void> {
  if (changes.length === 0) return;
  const occurredAt = formatInstant(time.at, time.timezone);
  const postgres = onPostgres(trx);
  // A large import records hundreds of thousands: a statement at a time, with a turn of the event loop
  // between them (cooperative.ts). A batch (5,000 items at most) stays one statement on PostgreSQL.
  const chunk = postgres ? UNNEST_CHUNK : INSERT_CHUNK;
  const pace = pacer();
  for (let i = 0; i < changes.length; i += chunk) {
    const rows = changes.slice(i, i + chunk).map((change) => changeRow(companyId, change, occurredAt, time.at));
    await trx.executeQuery(postgres ? unnestedInsert(companyId, columnsOf(rows), occurredAt, time.at).compile(trx) : changeInsert(trx, rows));
    await pace();
  }
}

/** Changes whose insert statement is built already: calling it sends the statement. */
export type PreparedChanges = () => Promise<void>;

/**
 * `recordChanges` in two steps: the statement built now, sent when the result is called. On
 * PostgreSQL a batch builds it while the database inserts the batch's figures (batch.ts), so the
 * service's part (the rows presented, their JSON, the texts) and the database's overlap instead of
 * taking turns. SQLite, and more changes than one statement takes, build when sent.
 */
export function prepareChanges(trx: Connection, companyId: string, changes: readonly NewChange[], time: ChangeTime): PreparedChanges {
  if (changes.length === 0 || changes.length > UNNEST_CHUNK || !onPostgres(trx)) return () => recordChanges(trx, companyId, changes, time);
  const occurredAt = formatInstant(time.at, time.timezone);
  const query = unnestedInsert(companyId, columnsOf(changes.map((change) => changeRow(companyId, change, occurredAt, time.at))), occurredAt, time.at).compile(trx);
  return async () => {
    await trx.executeQuery(query);
  };
}

type ChangeRow = Insertable<CompanyChangesTable>;

/** PostgreSQL: the varying columns of change rows. */
interface ChangeColumns {
  types: string[];
  resourceIds: string[];
  data: Array<string | null>;
}

function columnsOf(rows: readonly ChangeRow[]): ChangeColumns {
  return { types: rows.map((row) => row.type), resourceIds: rows.map((row) => row.resource_id), data: rows.map((row) => row.data ?? null) };
}

function changeRow(companyId: string, change: NewChange, occurredAt: string, recordedAt: number): ChangeRow {
  return {
    company_id: companyId,
    type: `${change.resourceType}.${change.action}`,
    resource_id: change.resourceId,
    occurred_at: occurredAt,
    recorded_at: recordedAt,
    data: change.action === 'deleted' ? null : JSON.stringify(change.data),
  };
}

/** SQLite: the multi-row insert, compiled once per row count (a timeclock event's single change, every event). */
const changeInsert = compiledRows((db: Db, rows: ChangeRow[]) => db.insertInto('company_changes').values(rows));

/**
 * PostgreSQL: every row in one statement, the varying columns as one text each that PostgreSQL
 * splits (separatedTexts: ids and JSON texts need no escaping that way): a 1,000-row VALUES list of
 * 6,000 parameters cost more to bind and plan than to store, and node-postgres escaped every element
 * of the arrays it was given. The seqs are drawn by one call (`company_changes_next_seqs`, migration
 * 0012: the writers' lock taken once, not once a row as the column default does) and zipped with the
 * rows by position, so they follow `rows`.
 */
function unnestedInsert(companyId: string, columns: ChangeColumns, occurredAt: string, recordedAt: number) {
  return sql`insert into company_changes (seq, company_id, type, resource_id, occurred_at, recorded_at, data)
    select c.seq, ${companyId}::text, c.type, c.resource_id, ${occurredAt}::text, ${recordedAt}::bigint, c.data
    from rows from (company_changes_next_seqs(${columns.types.length}::integer), unnest(string_to_array(${separatedTexts(columns.types)}::text, chr(30), '')),
      unnest(string_to_array(${separatedTexts(columns.resourceIds)}::text, chr(30), '')), unnest(string_to_array(${separatedTexts(columns.data)}::text, chr(30), ''))) as c(seq, type, resource_id, data)`;
}

/** A change with its company and time: for a statement that logs changes of several companies at once. */
export interface CompanyChange {
  companyId: string;
  change: NewChange;
  time: ChangeTime;
}

/** Rows per SQLite insert of `recordCompanyChanges`: runs of a power of two, so a handful of compiled templates. */
const COMPANY_CHANGE_ROWS = 64;

/**
 * SQLite: logs `changes` (of any companies, in this order) inside the caller's transaction, many rows
 * per statement: the change rows of a group of writes stored together (a timeclock group, store.ts).
 */
export async function recordCompanyChanges(trx: Connection, changes: readonly CompanyChange[]): Promise<void> {
  const rows = changes.map(({ companyId, change, time }) => changeRow(companyId, change, formatInstant(time.at, time.timezone), time.at));
  for (const run of powerOfTwoRuns(rows, COMPANY_CHANGE_ROWS)) await trx.executeQuery(changeInsert(trx, run));
}

const withChanges = new Map<string, PreparedStatement>();

/** `insert` returning the ids it stored: the CTE of `insertAllWithChanges`, also run alone by the bench's build without the change log. */
export function returningIds(insert: PreparedStatement): PreparedStatement {
  return { name: `${insert.name}_returning`, text: `${insert.text} returning id` };
}

/** `insert` as a CTE feeding the insert of its rows' changes: the changes' columns follow its parameters. */
function withChangesOf(insert: PreparedStatement, parameterCount: number): PreparedStatement {
  let statement = withChanges.get(insert.name);
  if (!statement) {
    const p = (i: number) => `$${parameterCount + i}`;
    statement = {
      name: `${insert.name}_with_changes`,
      text: `with written as (${returningIds(insert).text}) ` +
        'insert into company_changes (company_id, type, resource_id, occurred_at, recorded_at, data) ' +
        'select c.company_id, c.type, c.resource_id, c.occurred_at, c.recorded_at, c.data ' +
        `from unnest(${p(1)}::text[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::text[], ${p(5)}::bigint[], ${p(6)}::text[]) ` +
        'with ordinality as c(company_id, type, resource_id, occurred_at, recorded_at, data, n) ' +
        'join written on written.id = c.resource_id order by c.n returning resource_id',
    };
    withChanges.set(insert.name, statement);
  }
  return statement;
}

/**
 * PostgreSQL: runs `insert` — an INSERT, without RETURNING, of resources whose `id` is their change's
 * resourceId, typically `on conflict do nothing` — and logs the change of each row it stored, in one
 * autocommitted statement prepared once per connection (the insert a CTE feeding the changes'
 * insert). So a group of writes and their changes commit together, or not at all, in one round trip
 * and one flush. Returns the ids stored; a row the insert skipped logs no change.
 */
export async function insertAllWithChanges(db: Db, insert: PreparedStatement, values: readonly unknown[], changes: readonly CompanyChange[]): Promise<Set<string>> {
  const rows = changes.map(({ companyId, change, time }) => changeRow(companyId, change, formatInstant(time.at, time.timezone), time.at));
  const columns = [
    rows.map((row) => row.company_id),
    rows.map((row) => row.type),
    rows.map((row) => row.resource_id),
    rows.map((row) => row.occurred_at),
    rows.map((row) => row.recorded_at),
    rows.map((row) => row.data ?? null),
  ];
  const stored = await runPrepared<{ resource_id: string }>(db, withChangesOf(insert, values.length), [...values, ...columns]);
  return new Set(stored.map((row) => row.resource_id));
}
