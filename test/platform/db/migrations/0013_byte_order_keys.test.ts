// Migration 0013 makes PostgreSQL compare the inbound figures' indexed text columns byte by byte
// (collation "C"); going back to 0012 restores the database's default, and up again reapplies it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { down, up } from '../../../../src/platform/db/migrations/0013_byte_order_keys.ts';
import { testDialect, useMigratedDatabase } from '../../../support/database.ts';

const database = useMigratedDatabase();
const onPostgres = { skip: testDialect !== 'postgres' && 'SQLite compares text byte by byte already (BINARY)' };

/** The collation of each byte-ordered column of inbound_items: `C`, or null for the database's default. */
async function collations(db: Kysely<unknown>): Promise<Record<string, string | null>> {
  const { rows } = await sql<{ column_name: string; collation_name: string | null }>`
    select column_name, collation_name from information_schema.columns
    where table_name = 'inbound_items' and column_name in ('id', 'stream', 'department_id', 'period_key', 'period_start', 'kind', 'category')`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.column_name, row.collation_name]));
}

test('the key and read-back columns are byte-ordered, and down and up again switch them', onPostgres, async () => {
  const db = database.db as unknown as Kysely<unknown>;
  const columns = ['category', 'department_id', 'id', 'kind', 'period_key', 'period_start', 'stream'];
  const all = (collation: string | null) => Object.fromEntries(columns.map((column) => [column, collation]));
  assert.deepEqual(await collations(db), all('C'));
  await down(db);
  assert.deepEqual(await collations(db), all(null));
  await up(db);
  assert.deepEqual(await collations(db), all('C'));
});
