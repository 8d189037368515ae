// Statements compiled once and bound to fresh values: each run binds its own values (also inside a
// transaction, and for another row count), and a builder whose value does not become exactly one
// bound parameter is refused instead of binding the wrong value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { compiledOnce, compiledRows } from '../../src/platform/db/compiled-once.ts';
import type { Db } from '../../src/platform/db/database.ts';
import { useMigratedDatabase } from '../support/database.ts';

const database = useMigratedDatabase();

interface Secret {
  name: string;
  value: string;
  created_at: number;
}

const insertSecrets = compiledRows((db: Db, rows: Secret[]) => db.insertInto('app_secrets').values(rows));
const secretByName = compiledOnce((db: Db, values: { name: string }) => db.selectFrom('app_secrets').select(['name', 'value', 'created_at']).where('name', '=', values.name));

test('each run binds its own values, on the database and in a transaction, for any row count', async () => {
  const { db } = database;
  await db.executeQuery(insertSecrets(db, [{ name: 'once-a', value: 'A', created_at: 1 }]));
  await db.transaction().execute(async (trx) => {
    await trx.executeQuery(insertSecrets(trx, [{ name: 'once-b', value: 'B', created_at: 2 }, { name: 'once-c', value: 'C', created_at: 3 }]));
  });
  await db.executeQuery(insertSecrets(db, [{ name: 'once-d', value: 'D', created_at: 4 }]));
  for (const [name, value, createdAt] of [['once-a', 'A', 1], ['once-b', 'B', 2], ['once-c', 'C', 3], ['once-d', 'D', 4]] as const) {
    const { rows } = await db.executeQuery(secretByName(db, { name }));
    assert.deepEqual(rows.map((row) => ({ ...row, created_at: Number(row.created_at) })), [{ name, value, created_at: createdAt }]);
  }
});

test('a value the builder repeats, or never binds, is refused at the first run', () => {
  const repeated = compiledOnce((db: Db, values: { name: string }) => db.selectFrom('app_secrets').select('name').where('name', '=', values.name).where('value', '=', values.name));
  assert.throws(() => repeated(database.db, { name: 'x' }), /exactly one bound parameter/);
  const inlined = compiledOnce((db: Db, values: { name: string }) => db.selectFrom('app_secrets').select('name').where('name', '=', sql.lit(values.name)));
  assert.throws(() => inlined(database.db, { name: 'x' }), /exactly one bound parameter/);
});
