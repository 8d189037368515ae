// What PostgreSQL did per row of a 5,000-item inbound batch without need (issue 16; measured in
// docs/benchmarks.md). SQLite is left as it is: its foreign-key check is an index probe in C, it has no
// fillfactor, and its change log already draws seqs without a function call.
//
// 1. `inbound_items` pages are filled to FILLFACTOR % only, so a changed amount is written beside the
//    old row version on the same page (a HOT update: no new index entries in its three indexes).
// 2. The foreign key `inbound_items.company_id → companies` ran a trigger and a look-up per row. It is
//    replaced by the same rule checked once per statement: the statement's distinct companies are
//    locked `for key share`, as the foreign key locked them, and must exist (and so must the company
//    of a row whose company_id an UPDATE sets, which the upsert never does: that trigger never fires
//    for a batch); a company that still has figures cannot be deleted or renumbered. Nothing in
//    the service deletes companies; the lock makes a concurrent delete wait for the writer and then
//    see its rows (READ COMMITTED, as every transaction of the service runs).
// 3. `company_changes_next_seqs(n)` draws n seqs under ONE take of the writers' shared lock (0009's
//    function took it once per row): the same lock-before-draw order docs/changes.md's proof needs.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** Half of each page left free: room for a new version of every row on it (a batch changes them all). */
const FILLFACTOR = 50;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table inbound_items set (fillfactor = ${sql.lit(FILLFACTOR)})`.execute(db);
  await sql`alter table inbound_items drop constraint inbound_items_company_id_fkey`.execute(db);
  await sql`
    create function inbound_items_check_companies() returns trigger language plpgsql as $$
    declare
      missing text;
    begin
      perform 1 from companies where id in (select distinct company_id from written) for key share;
      select w.company_id into missing from (select distinct company_id from written) w
        where not exists (select 1 from companies c where c.id = w.company_id) limit 1;
      if found then
        raise foreign_key_violation using message = format('inbound_items: company %s does not exist', missing);
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger inbound_items_companies_exist after insert on inbound_items
    referencing new table as written for each statement execute function inbound_items_check_companies()`.execute(db);
  await sql`
    create function inbound_items_check_moved_company() returns trigger language plpgsql as $$
    begin
      perform 1 from companies where id = new.company_id for key share;
      if not found then
        raise foreign_key_violation using message = format('inbound_items: company %s does not exist', new.company_id);
      end if;
      return new;
    end
    $$`.execute(db);
  await sql`
    create trigger inbound_items_moved_company_exists before update of company_id on inbound_items
    for each row when (new.company_id is distinct from old.company_id) execute function inbound_items_check_moved_company()`.execute(db);
  await sql`
    create function companies_keep_inbound_items() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from inbound_items where company_id = old.id) then
        raise foreign_key_violation using message = format('companies: company %s still has inbound figures', old.id);
      end if;
      return case when tg_op = 'DELETE' then old else new end;
    end
    $$`.execute(db);
  await sql`
    create trigger companies_inbound_items_kept before delete or update of id on companies
    for each row execute function companies_keep_inbound_items()`.execute(db);
  await sql`
    create function company_changes_next_seqs(count integer) returns setof bigint language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock_shared(1464226593, 1);
      return query select nextval('company_changes_seq') from generate_series(1, count);
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function company_changes_next_seqs(integer)`.execute(db);
  await sql`drop trigger companies_inbound_items_kept on companies`.execute(db);
  await sql`drop function companies_keep_inbound_items()`.execute(db);
  await sql`drop trigger inbound_items_moved_company_exists on inbound_items`.execute(db);
  await sql`drop function inbound_items_check_moved_company()`.execute(db);
  await sql`drop trigger inbound_items_companies_exist on inbound_items`.execute(db);
  await sql`drop function inbound_items_check_companies()`.execute(db);
  await sql`alter table inbound_items add constraint inbound_items_company_id_fkey foreign key (company_id) references companies (id)`.execute(db);
  await sql`alter table inbound_items reset (fillfactor)`.execute(db);
}
