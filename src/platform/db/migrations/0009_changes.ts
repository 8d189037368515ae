// The change log of CONTRACT §7 (src/changes/): one row per change, written in the transaction of the
// change, and each company's retention horizon. See docs/changes.md for why `seq` is taken the way
// it is on PostgreSQL: the function takes a shared advisory lock (held until the transaction ends)
// BEFORE it draws the sequence value, which is what lets a reader know when every change below a
// given seq has committed or aborted. Shared locks never wait for one another: writers stay parallel.
// On SQLite there is one writer at a time, so an AUTOINCREMENT key (never reused, even after the
// newest rows are pruned) already grows with commit order.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

function onPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (onPostgres(db)) {
    await sql`create sequence company_changes_seq`.execute(db);
    await sql`
      create function company_changes_next_seq() returns bigint language plpgsql volatile as $$
      begin
        perform pg_advisory_xact_lock_shared(1464226593, 1);
        return nextval('company_changes_seq');
      end
      $$`.execute(db);
  }
  await db.schema
    .createTable('company_changes')
    .addColumn('seq', onPostgres(db) ? 'bigint' : 'integer', (c) =>
      onPostgres(db) ? c.primaryKey().defaultTo(sql`company_changes_next_seq()`) : c.primaryKey().autoIncrement())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    /** The instant as the API writes it (company offset at the time of the change). */
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    /** Epoch milliseconds of the change, for retention. */
    .addColumn('recorded_at', 'bigint', (c) => c.notNull())
    /** JSON of the resource after the change; null for a deletion. */
    .addColumn('data', 'text')
    .execute();
  await db.schema.createIndex('company_changes_company_seq').on('company_changes').columns(['company_id', 'seq']).execute();
  await db.schema
    .createTable('company_change_horizons')
    .addColumn('company_id', 'text', (c) => c.primaryKey())
    .addColumn('pruned_through', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('company_change_horizons').execute();
  await db.schema.dropTable('company_changes').execute();
  if (onPostgres(db)) {
    await sql`drop function company_changes_next_seq()`.execute(db);
    await sql`drop sequence company_changes_seq`.execute(db);
  }
}
