// A fresh database for each test server: a temporary SQLite file by default, or a new PostgreSQL
// database on the machine's server when WFS_TEST_DATABASE=postgres (CI runs both). Empty
// (`freshDatabase`) for the tests of migrating itself, or already migrated (`migratedDatabase`) for
// everything else: a copy of a template migrated once for the current set of migrations (SQLite:
// a file in the temporary folder, copied; PostgreSQL: a template database, `create database …
// template …`), which costs a fraction of running eleven migrations for every server.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createDatabase, type Db } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrate.ts';
import { useUserSecretCost } from '../../src/iam/secrets.ts';

/**
 * Tests hash user secrets and passwords at scrypt N = 2^10 (about 3.5 ms of CPU) instead of the
 * production 2^14 (about 53 ms): the suite makes hundreds. The code is the same; every hash carries its
 * own N. Set here for domain functions a test calls directly, and passed as PASSWORD_HASH_COST to the
 * servers and `wfs` runs the tests start.
 */
export const TEST_PASSWORD_HASH_COST = '10';
useUserSecretCost(Number(TEST_PASSWORD_HASH_COST));

export const testDialect: 'sqlite' | 'postgres' = process.env.WFS_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
const ADMIN_URL = process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function postgresUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

function sqliteFile(): { path: string; drop: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'wfs-test-'));
  return { path: join(dir, 'wfs.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** A new PostgreSQL database, empty or copied from `template`. */
async function postgresDatabase(template?: string): Promise<FreshDatabase> {
  const name = `wfs_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}${template ? ` template ${template}` : ''}`);
  return { url: postgresUrl(name), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

/** An empty database. */
export async function freshDatabase(): Promise<FreshDatabase> {
  if (testDialect === 'postgres') return postgresDatabase();
  const { path, drop } = sqliteFile();
  return { url: `sqlite:${path}`, drop };
}

const MIGRATIONS = fileURLToPath(new URL('../../src/platform/db/migrations/', import.meta.url));
const MIGRATOR = fileURLToPath(new URL('../../src/platform/db/migrate.ts', import.meta.url));

/** Names the template after what makes it: the migrations and the code that runs them. */
function migrationsDigest(): string {
  const hash = createHash('sha256').update(readFileSync(MIGRATOR));
  for (const file of readdirSync(MIGRATIONS).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS, file)));
  return hash.digest('hex').slice(0, 16);
}

async function migrate(url: string): Promise<void> {
  const db = createDatabase(url, { poolSize: 1 });
  try {
    await migrateToLatest(db);
    // SQLite: everything into the database file itself, which is what gets copied.
    if (testDialect === 'sqlite') await sql`pragma wal_checkpoint(truncate)`.execute(db);
  } finally {
    await db.destroy();
  }
}

/**
 * The template for the current migrations, made once and then shared by every test process (of
 * every run, until a migration changes): built under a name of its own, then renamed into place, so
 * that no one ever copies a half-migrated template; when two processes build it at once, the
 * second rename loses and its copy is dropped.
 */
async function makeTemplate(): Promise<string> {
  const name = `wfs_template_${migrationsDigest()}`;
  if (testDialect === 'sqlite') {
    const path = join(tmpdir(), `${name}.db`);
    if (existsSync(path)) return path;
    const building = `${path}.${randomBytes(6).toString('hex')}`;
    try {
      await migrate(`sqlite:${building}`);
      renameSync(building, path);
    } finally {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
    }
    return path;
  }
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return name;
    const building = `${name}_${randomBytes(4).toString('hex')}`;
    await client.query(`create database ${building}`);
    try {
      await migrate(postgresUrl(building));
      await client.query(`alter database ${building} rename to ${name}`);
    } catch (error) {
      await client.query(`drop database if exists ${building} with (force)`);
      if ((error as { code?: string }).code !== '42P04') throw error; // 42P04: another process made it first
    }
    return name;
  } finally {
    await client.end();
  }
}

let template: Promise<string> | undefined;

/** A database with every migration applied (and nothing else: no signing key, no tenant). */
export async function migratedDatabase(): Promise<FreshDatabase> {
  template ??= makeTemplate();
  const source = await template;
  if (testDialect === 'postgres') return postgresDatabase(source);
  const { path, drop } = sqliteFile();
  copyFileSync(source, path);
  return { url: `sqlite:${path}`, drop };
}

export interface MigratedDatabaseFixture {
  url: string;
  /** The test's own handle on the database. */
  db: Db;
}

/** `migratedDatabase()` and a handle on it as the calling file's fixture: made before its tests, dropped after them. */
export function useMigratedDatabase(): MigratedDatabaseFixture {
  const fixture = {} as MigratedDatabaseFixture;
  let database: FreshDatabase | undefined;
  before(async () => {
    database = await migratedDatabase();
    fixture.url = database.url;
    fixture.db = createDatabase(database.url);
  });
  after(async () => {
    await fixture.db?.destroy();
    await database?.drop();
  });
  return fixture;
}
