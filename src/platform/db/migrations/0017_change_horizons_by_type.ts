// The change log's retention horizon per (company, change type) (src/changes/change-log.ts,
// docs/changes.md). With one horizon per company, pruning a revenue item expired a cursor filtered to
// shifts, which never had to return it. Now a cursor is refused only when a type its filter selects
// has a pruned change after it.
// - Carried over: a company-wide horizon says nothing of the types it pruned, so it becomes the
//   horizon of every type (the types of the log at this migration: a type added later had no changes then).
// - Rolling deploy: an older release reads and raises only company_change_horizons. This release keeps
//   raising it too (so an older release still refuses what it must), and a trigger turns a raise that
//   this release did not explain — one above every type's horizon of the company, i.e. an older
//   release's prune — into a raise of every type. The company-wide table is dropped in a later release.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** CHANGE_TYPES as of this migration (a migration does not follow later code). */
const TYPES = [
  'user', 'contract', 'shift', 'department', 'position', 'shift_type', 'contract_type',
].flatMap((resource) => ['created', 'updated', 'deleted'].map((action) => `${resource}.${action}`))
  .concat(['revenue_item.created', 'revenue_item.updated', 'wage_budget_item.created', 'wage_budget_item.updated', 'timeclock_event.created']);

/** The types as a VALUES list, its column `column1` on both databases (constants of this file: safe to inline into a trigger's body). */
const typeRows = sql.raw(`(values ${TYPES.map((type) => `('${type}')`).join(', ')})`);

function onPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('company_change_type_horizons')
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('pruned_through', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('company_change_type_horizons_pk', ['company_id', 'type'])
    .execute();
  await sql`insert into company_change_type_horizons (company_id, type, pruned_through)
    select h.company_id, t.column1, h.pruned_through from company_change_horizons h cross join ${typeRows} as t`.execute(db);
  if (onPostgres(db)) {
    await sql`
      create function company_change_horizons_by_type() returns trigger language plpgsql as $$
      begin
        if new.pruned_through > coalesce((select max(pruned_through) from company_change_type_horizons where company_id = new.company_id), 0) then
          insert into company_change_type_horizons (company_id, type, pruned_through)
          select new.company_id, t.column1, new.pruned_through from ${typeRows} as t
          on conflict (company_id, type) do update set pruned_through = greatest(company_change_type_horizons.pruned_through, excluded.pruned_through);
        end if;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger company_change_horizons_by_type after insert or update of pruned_through on company_change_horizons
      for each row execute function company_change_horizons_by_type()`.execute(db);
    return;
  }
  // SQLite: `where true` tells the upsert's ON CONFLICT from a join's ON.
  for (const event of ['insert', 'update of pruned_through']) {
    await sql`
      create trigger ${sql.raw(`company_change_horizons_by_type_${event.split(' ')[0]}`)} after ${sql.raw(event)} on company_change_horizons
      for each row when new.pruned_through > coalesce((select max(pruned_through) from company_change_type_horizons where company_id = new.company_id), 0)
      begin
        insert into company_change_type_horizons (company_id, type, pruned_through)
        select new.company_id, column1, new.pruned_through from ${typeRows} where true
        on conflict (company_id, type) do update set pruned_through = max(pruned_through, excluded.pruned_through);
      end`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // company_change_horizons is kept current by this release, so an older one finds what it needs there.
  if (onPostgres(db)) {
    await sql`drop trigger company_change_horizons_by_type on company_change_horizons`.execute(db);
    await sql`drop function company_change_horizons_by_type()`.execute(db);
  } else {
    await sql`drop trigger company_change_horizons_by_type_insert`.execute(db);
    await sql`drop trigger company_change_horizons_by_type_update`.execute(db);
  }
  await db.schema.dropTable('company_change_type_horizons').execute();
}
