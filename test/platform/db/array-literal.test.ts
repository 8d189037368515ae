// Array literals written by the service (src/platform/db/array-literal.ts) read back by PostgreSQL
// as exactly the values sent: every text stays text, whatever characters it holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { integerArray, separatedTexts, textArray } from '../../../src/platform/db/array-literal.ts';
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

test('separated texts split back into the JSON texts and ids sent, null as null; a text they cannot carry is refused', postgresOnly, async () => {
  const values = [JSON.stringify({ a: 'a "quoted", \\ {braced} \u001e word', b: null, c: [1.5, 'NULL'] }), 'fig_P7LHHq1kQaQfENzM7Mbi-_', null, JSON.stringify('\n\t'), ' ', 'ünïcödé 😀'];
  const { rows } = await sql<{ value: string | null }>`select unnest(string_to_array(${separatedTexts(values)}::text, chr(30), '')) as value`.execute(database.db);
  assert.deepEqual(rows.map((row) => row.value), values);
  const lone = await sql<{ n: number; value: string | null }>`select * from rows from (generate_series(1, 1), unnest(string_to_array(${separatedTexts([null])}::text, chr(30), ''))) as c(n, value)`.execute(database.db);
  assert.deepEqual(lone.rows.map((row) => [Number(row.n), row.value]), [[1, null]], 'a lone null comes back through rows from');
  assert.throws(() => separatedTexts(['a', '']), /cannot carry ""/);
  assert.throws(() => separatedTexts(['a\u001eb']), /cannot carry/);
});
