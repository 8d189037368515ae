// Every instance learns of revoked grants by polling (src/iam/revocations.ts). It used to read the
// grants whose revoked_at — the writer's clock when the revoking call began — fell in the last 10 s
// of its own clock: a write that waited longer than that for a lock (or behind an import), or a
// writer whose clock was behind, was never read, and the grant's ID tokens lived on elsewhere. Now
// each revocation gets `revoked_seq`, whose order a reader can tell apart from its snapshot alone,
// without a clock. A trigger sets it in the revoking transaction, so every writer sets it: this
// release's code, an older release still serving during a rolling deploy, a hand-written UPDATE.
// - PostgreSQL: the id of the revoking transaction (pg_current_xact_id, 64 bits: it never wraps).
//   A reader's snapshot says which transactions may still commit: those it lists in progress
//   (pg_snapshot_xip) and every one from pg_snapshot_xmax on. docs/identity.md has the proof.
// - SQLite: a counter raised under the write lock. There is one writer at a time, so the counter
//   grows in commit order, and one that a reader's snapshot shows as n means every seq up to n is
//   visible to it.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('grants').addColumn('revoked_seq', 'bigint').execute();
  // Partial: a grant is inserted with no revoked_seq on every token issue, and an index of all grants
  // would take a B-tree insert of that null each time. The poll's `revoked_seq >= …` (or `= any(…)`)
  // implies not null, so both databases use this index for it.
  await db.schema.createIndex('grants_revoked_seq').on('grants').column('revoked_seq').where(sql.ref('revoked_seq'), 'is not', null).execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function grants_order_revocation() returns trigger language plpgsql as $$
      begin
        new.revoked_seq := pg_current_xact_id()::text::bigint;
        return new;
      end
      $$`.execute(db);
    await sql`
      create trigger grants_revocation_order before update of revoked_at on grants
      for each row when (old.revoked_at is null and new.revoked_at is not null)
      execute function grants_order_revocation()`.execute(db);
    return;
  }
  await sql`create table revocation_counter (id integer primary key check (id = 1), seq integer not null)`.execute(db);
  await sql`insert into revocation_counter (id, seq) values (1, 0)`.execute(db);
  await sql`
    create trigger grants_revocation_order after update of revoked_at on grants
    for each row when old.revoked_at is null and new.revoked_at is not null
    begin
      update revocation_counter set seq = seq + 1;
      update grants set revoked_seq = (select seq from revocation_counter) where id = new.id;
    end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger grants_revocation_order on grants`.execute(db);
    await sql`drop function grants_order_revocation()`.execute(db);
  } else {
    await sql`drop trigger grants_revocation_order`.execute(db);
    await sql`drop table revocation_counter`.execute(db);
  }
  await db.schema.dropIndex('grants_revoked_seq').execute();
  await db.schema.alterTable('grants').dropColumn('revoked_seq').execute();
}
