// PostgreSQL: `inbound_items` without the primary key on `id`, its period index unique instead (issue
// 16; docs/inbound.md, Storage, says what guarantees what; docs/benchmarks.md, "Revenue batches",
// session 9, what it bought). No query reads a figure by id alone: the read-back walks the period
// index, which ends in `id`. The primary key was a third B-tree written per inserted row, ~10–15 % of
// the backend's CPU in the insert of 5,000 new figures. The unique period index keeps a database
// guarantee on what the read-back's paging relies on: (company, stream, period start, id) names one
// figure; ids are unique by construction (a millisecond time and 96 random bits, ids.ts). SQLite
// keeps its primary key: dropping it means rebuilding the table, and its batches met their target.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** (Re)builds the period index, unique or not, under the name the queries' plans and the docs use. */
async function rebuildPeriodIndex(db: Kysely<unknown>, unique: boolean): Promise<void> {
  await sql`drop index inbound_items_period`.execute(db);
  await sql`create ${sql.raw(unique ? 'unique ' : '')}index inbound_items_period on inbound_items (company_id, stream, period_start, id)`.execute(db);
}

/**
 * Both directions build an index under an ACCESS EXCLUSIVE lock (taken first, so that no lock is
 * upgraded halfway: a batch reads the table before it writes it), ~2–6 s per million rows here
 * (docs/deployment.md). The wait for the lock is bounded, as in 0013: a busy table fails the
 * migration, to be run again, rather than stalling the API.
 */
async function locked(db: Kysely<unknown>, change: () => Promise<void>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`set local lock_timeout = '5s'`.execute(db);
  await sql`lock table inbound_items in access exclusive mode`.execute(db);
  await change();
  await sql`set local lock_timeout to default`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await locked(db, async () => {
    await rebuildPeriodIndex(db, true);
    await sql`alter table inbound_items drop constraint inbound_items_pkey`.execute(db);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await locked(db, async () => {
    await sql`alter table inbound_items add constraint inbound_items_pkey primary key (id)`.execute(db);
    await rebuildPeriodIndex(db, false);
  });
}
