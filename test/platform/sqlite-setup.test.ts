// The embedded SQLite database (contract: addresses and configuration `DATABASE_URL=sqlite:<path>`): a path in a directory that
// does not exist yet is created, by the server and by `wfs` alike, and every connection is opened in
// WAL mode with foreign keys enforced and a busy timeout (so the CLI and the server can share the file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../../src/platform/config.ts';
import { closeContext, createContext } from '../../src/app/bootstrap.ts';
import type { Db } from '../../src/platform/db/database.ts';
import { testDialect } from '../support/database.ts';
import { runWfsJson } from '../support/processes.ts';

const sqliteOnly = { skip: testDialect !== 'sqlite' && 'SQLite only' };

async function pragma(db: Db, name: string): Promise<unknown> {
  const { rows } = await sql.raw<Record<string, unknown>>(`PRAGMA ${name}`).execute(db);
  return Object.values(rows[0] ?? {})[0];
}

function scratchDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'wfs-sqlite-setup-'));
}

test('the server opens sqlite:<path> in directories that do not exist yet, creating them', sqliteOnly, async () => {
  const root = scratchDirectory();
  const directory = join(root, 'not', 'there', 'yet');
  const file = join(directory, 'wfs.db');
  assert.equal(existsSync(directory), false);
  const ctx = await createContext(loadConfig({ DATABASE_URL: `sqlite:${file}` }), { poll: false });
  try {
    assert.ok(statSync(directory).isDirectory(), 'the directory was created');
    assert.ok(statSync(file).isFile(), 'the database file was created');
    const migrated = await ctx.db.selectFrom('signing_keys').select('kid').execute();
    assert.equal(migrated.length, 1, 'migrated and given its first signing key');
  } finally {
    await closeContext(ctx);
    rmSync(root, { recursive: true, force: true });
  }
});

test('the database is opened in WAL mode, with foreign keys on, no busy handler and temporary storage in memory', sqliteOnly, async () => {
  const root = scratchDirectory();
  const ctx = await createContext(loadConfig({ DATABASE_URL: `sqlite:${join(root, 'wfs.db')}` }), { poll: false });
  try {
    assert.equal(await pragma(ctx.db, 'journal_mode'), 'wal');
    assert.equal(await pragma(ctx.db, 'foreign_keys'), 1);
    // No busy handler, which would sleep on the event loop: waits for the lock are timers
    // (sqlite-dialect.ts; test/cli/writes-beside-server.test.ts).
    assert.equal(Number(await pragma(ctx.db, 'busy_timeout')), 0);
    // Statement journals (a grouped commit's savepoints) and temporary tables in memory, not in files.
    assert.equal(await pragma(ctx.db, 'temp_store'), 2);
    // Foreign keys are really enforced: an API Client of a company that does not exist is refused.
    const now = Date.now();
    await assert.rejects(
      ctx.db.insertInto('api_clients').values({ id: 'cli_orphan', company_id: 'cmp_missing', name: 'Orphan', secret_hash: 'x', redirect_uris: '[]', grants: '[]', audiences: '[]', disabled: 0, created_at: now, updated_at: now }).execute(),
      /FOREIGN KEY/i,
    );
    assert.ok(existsSync(join(root, 'wfs.db-wal')), 'the write-ahead log sits beside the database');
  } finally {
    await closeContext(ctx);
    rmSync(root, { recursive: true, force: true });
  }
});

test('wfs migrate on sqlite:<path> in a directory that does not exist yet creates it', sqliteOnly, async () => {
  const root = scratchDirectory();
  const file = join(root, 'fresh', 'data', 'wfs.db');
  try {
    const run = await runWfsJson(['migrate'], { DATABASE_URL: `sqlite:${file}` });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(Array.isArray(run.json.applied) && run.json.applied.length > 0, JSON.stringify(run.json));
    assert.ok(statSync(file).isFile());
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
