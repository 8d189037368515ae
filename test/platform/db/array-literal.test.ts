// Array literals written by the service (src/platform/db/array-literal.ts) read back by PostgreSQL
// as exactly the values sent: every text stays text, whatever characters it holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { integerArray, textArray } from '../../../src/platform/db/array-literal.ts';
import { testDialect, useMigratedDatabase } from '../../support/database.ts';

const database = useMigratedDatabase();
const postgresOnly = { skip: testDialect !== 'postgres' && 'PostgreSQL only (SQLite has no arrays)' };

test('text arrays keep quotes, backslashes, separators, the word NULL, blanks and any other character', postgresOnly, async () => {
  const values = ['plain', 'a "quoted" word', 'back\\slash', '\\"', 'a,b', '{braces}', 'NULL', 'null', '', ' padded ', 'line\nbreak\ttab', 'ünïcödé 😀', null, '"', '\\'];
  const { rows } = await sql<{ value: string | null }>`select unnest(${textArray(values)}::text[]) as value`.execute(database.db);
  assert.deepEqual(rows.map((row) => row.value), values);
});

test('integer arrays keep negative, large and null values', postgresOnly, async () => {
  const values = [0, -7, 1230, 10 ** 15, -(10 ** 15), Number.MAX_SAFE_INTEGER, null];
  const { rows } = await sql<{ value: string | null }>`select unnest(${integerArray(values)}::bigint[]) as value`.execute(database.db);
  assert.deepEqual(rows.map((row) => (row.value === null ? null : Number(row.value))), values);
});

test('an empty array is empty', postgresOnly, async () => {
  const { rows } = await sql<{ n: number }>`select cardinality(${textArray([])}::text[]) as n`.execute(database.db);
  assert.equal(Number(rows[0]?.n), 0);
});
