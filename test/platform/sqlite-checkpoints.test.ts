// Background checkpoints on SQLite: with them, the write-ahead log is copied back into the database
// by a worker thread, not by the commit that happens to cross SQLite's threshold; without them, a log
// below the threshold stays where it is. Closing the database stops the worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createDatabase, sqliteHandleOf, type Db } from '../../src/platform/db/database.ts';
import { freshDatabase, testDialect } from '../support/database.ts';

const sqliteOnly = { skip: testDialect !== 'sqlite' && 'SQLite only' };

/** Writes ~3 MB (about 750 pages: below both SQLite's 1,000-page threshold and the fallback). */
async function writeThreeMegabytes(db: Db): Promise<void> {
  await sql`create table filler (id integer primary key, body text not null)`.execute(db);
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < 3000; i++) await sql`insert into filler (body) values (${'x'.repeat(1000)})`.execute(trx);
  });
}

async function databaseFileSize(path: string, waitMs: number): Promise<number> {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && statSync(path).size < 2_000_000) await sleep(25);
  return statSync(path).size;
}

for (const background of [true, false]) {
  test(`${background ? 'with' : 'without'} background checkpoints the log ${background ? 'reaches' : 'stays out of'} the database file`, sqliteOnly, async () => {
    const database = await freshDatabase();
    const path = database.url.slice('sqlite:'.length);
    const db = createDatabase(database.url);
    const errors: string[] = [];
    try {
      if (background) sqliteHandleOf(db)?.checkpointInBackground(20, (message) => errors.push(message));
      await writeThreeMegabytes(db);
      const size = await databaseFileSize(path, 1000);
      if (background) assert.ok(size > 2_000_000, `checkpointed: the database file holds ${size} bytes`);
      else assert.ok(size < 100_000, `not checkpointed: the database file holds ${size} bytes`);
      assert.deepEqual(errors, []);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
}

test('a database with background checkpoints closes, and the process is free to end', sqliteOnly, async () => {
  const database = await freshDatabase();
  const db = createDatabase(database.url);
  sqliteHandleOf(db)?.checkpointInBackground(10, () => {});
  await sql`select 1`.execute(db);
  await db.destroy();
  // Reopened at once: the worker's connection is no obstacle to a new writer.
  const again = createDatabase(database.url);
  await sql`create table after_close (id integer)`.execute(again);
  await again.destroy();
  await database.drop();
});
