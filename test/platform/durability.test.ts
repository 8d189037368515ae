// Durable writes: grouped writes settle independently (one failing undoes only itself); a failing
// durable transaction stores nothing; on SQLite the connection's own mode stays NORMAL (the WAL is
// synced asynchronously after the commit instead).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createDatabase, type Db } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrate.ts';
import { durably, durablyGrouped } from '../../src/platform/db/durability.ts';
import { freshDatabase, testDialect, type FreshDatabase } from '../support/database.ts';

let database: FreshDatabase;
let db: Db;
before(async () => {
  database = await freshDatabase();
  db = createDatabase(database.url);
  await migrateToLatest(db);
});
after(async () => {
  await db.destroy();
  await database.drop();
});

const secret = (name: string) => (trx: Db) => trx.insertInto('app_secrets').values({ name, value: 'v', created_at: 1 }).execute();

test('concurrent grouped writes each settle on their own: a unique violation rejects only its writer', async () => {
  const names = Array.from({ length: 20 }, (_, i) => `grouped-${i}`);
  const outcomes = await Promise.allSettled([...names, 'grouped-3'].map((name) => durablyGrouped(db, secret(name))));
  assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 20);
  assert.equal(outcomes.filter((o) => o.status === 'rejected').length, 1);
  const stored = await db.selectFrom('app_secrets').select('name').where('name', 'like', 'grouped-%').execute();
  assert.equal(stored.length, 20);
});

test('a durable write that fails stores nothing and leaves the connection usable', async () => {
  await assert.rejects(durably(db, (connection) => connection.transaction().execute(async (trx) => {
    await secret('half-written')(trx);
    throw new Error('fails after its first statement');
  })));
  assert.equal(await db.selectFrom('app_secrets').select('name').where('name', '=', 'half-written').executeTakeFirst(), undefined);
  await durably(db, secret('after-failure'));
  assert.ok(await db.selectFrom('app_secrets').select('name').where('name', '=', 'after-failure').executeTakeFirst());
});

test('on SQLite a durable write leaves the connection in synchronous = NORMAL', { skip: testDialect !== 'sqlite' && 'SQLite only' }, async () => {
  await durablyGrouped(db, secret('mode-check'));
  const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db);
  assert.equal(rows[0]?.synchronous, 1, 'NORMAL');
});
