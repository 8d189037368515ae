// Durable and grouped writes: grouped writes settle independently (one failing undoes only itself)
// and on SQLite share one commit with the writes that arrive with them; a failing durable
// transaction stores nothing; on SQLite the connection's own mode stays NORMAL (the WAL is synced
// asynchronously after the commit instead).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { sqliteHandleOf, type Db } from '../../src/platform/db/database.ts';
import { durably, grouped } from '../../src/platform/db/durability.ts';
import { testDialect, useMigratedDatabase } from '../support/database.ts';

const database = useMigratedDatabase();

const secret = (name: string) => (trx: Db) => trx.insertInto('app_secrets').values({ name, value: 'v', created_at: 1 }).execute();

test('concurrent grouped writes each settle on their own: a unique violation rejects only its writer', async () => {
  const names = Array.from({ length: 20 }, (_, i) => `grouped-${i}`);
  const outcomes = await Promise.allSettled([...names, 'grouped-3'].map((name) => grouped(database.db, secret(name))));
  assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 20);
  assert.equal(outcomes.filter((o) => o.status === 'rejected').length, 1);
  const stored = await database.db.selectFrom('app_secrets').select('name').where('name', 'like', 'grouped-%').execute();
  assert.equal(stored.length, 20);
});

// On PostgreSQL grouped writes run as they are, one statement at a time, like any other write.
test('grouped writes that fail undo only themselves, statements already run included', { skip: testDialect !== 'sqlite' && 'SQLite only' }, async () => {
  const writes = ['plain-a', 'plain-b'].map((value) => grouped(database.db, secret(value)));
  const failing = grouped(database.db, async (trx) => {
    await secret('plain-half')(trx);
    throw new Error('fails after its first statement');
  });
  await Promise.all(writes);
  await assert.rejects(failing, /fails after its first statement/);
  const stored = await database.db.selectFrom('app_secrets').select('name').where('name', 'like', 'plain-%').orderBy('name').execute();
  assert.deepEqual(stored.map((row) => row.name), ['plain-a', 'plain-b']);
});

test('on SQLite writes that arrive together share one commit', { skip: testDialect !== 'sqlite' && 'SQLite only' }, async () => {
  // A second, read-only connection sees committed rows only: while the last write runs, neither the
  // writes queued before it nor itself are committed yet, so all three are in one transaction.
  const committed = () => sqliteHandleOf(database.db)?.readCommittedRow("select count(*) as n from app_secrets where name like 'together-%'", [])?.n;
  const seen = await Promise.all(['together-1', 'together-2', 'together-3'].map((name) =>
    grouped(database.db, async (trx) => {
      await secret(name)(trx);
      return committed();
    })));
  assert.deepEqual(seen, [0, 0, 0]);
  assert.equal(committed(), 3);
});

test('a durable write that fails stores nothing and leaves the connection usable', async () => {
  await assert.rejects(durably(database.db, (connection) => connection.transaction().execute(async (trx) => {
    await secret('half-written')(trx);
    throw new Error('fails after its first statement');
  })));
  assert.equal(await database.db.selectFrom('app_secrets').select('name').where('name', '=', 'half-written').executeTakeFirst(), undefined);
  await durably(database.db, secret('after-failure'));
  assert.ok(await database.db.selectFrom('app_secrets').select('name').where('name', '=', 'after-failure').executeTakeFirst());
});

test('on SQLite a durable write leaves the connection in synchronous = NORMAL', { skip: testDialect !== 'sqlite' && 'SQLite only' }, async () => {
  await durably(database.db, secret('mode-check'));
  const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(database.db);
  assert.equal(rows[0]?.synchronous, 1, 'NORMAL');
});
