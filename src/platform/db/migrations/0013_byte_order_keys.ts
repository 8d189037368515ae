// The inbound figures' indexed text columns compared byte by byte (collation "C") on PostgreSQL
// (issue 16; docs/benchmarks.md, "Revenue batches", session 8). Comparing index keys was ~35 % of the
// backend's CPU in a profile of a 5,000-item upsert, and under the database's default collation each
// comparison of two texts went through the locale (strcoll on copies of both strings), even for
// C.UTF-8, which PostgreSQL 15 does not treat as "C": the upsert ran 67 → 56 ms with bytes compared.
// Byte order is also SQLite's, so both databases now read figures back in the same
// order. Uniqueness is unchanged: a deterministic collation, as every libc one is, only equates equal
// bytes. `company_id` keeps its collation: its WHERE-clause trigger (0012) pins the column, and equal
// strings — all of one statement's — already take a memcmp fast path.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

const BYTE_ORDERED = ['id', 'stream', 'department_id', 'period_key', 'period_start', 'kind', 'category'];

function setCollation(db: Kysely<unknown>, collation: 'C' | 'default') {
  return sql`alter table inbound_items ${sql.join(BYTE_ORDERED.map((column) => sql`alter column ${sql.id(column)} type text collate ${sql.id(collation)}`))}`.execute(db);
}

/**
 * The change rebuilds the table's three indexes under an ACCESS EXCLUSIVE lock (~3.4 s per million
 * rows here; docs/deployment.md says when to run it by hand). Waiting for that lock would queue every
 * read of the table behind it, so the wait is bounded: a busy table fails the migration, to be run
 * again, rather than stalling the API. Rebuilt columns lose their planner statistics: gathered again.
 */
async function changeCollation(db: Kysely<unknown>, collation: 'C' | 'default'): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`set local lock_timeout = '5s'`.execute(db);
  await setCollation(db, collation);
  await sql`analyze inbound_items`.execute(db);
  await sql`set local lock_timeout to default`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await changeCollation(db, 'C');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await changeCollation(db, 'default');
}
