// One Kysely handle over either dialect, chosen by DATABASE_URL (contract: addresses and configuration).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresAdapter, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { LockWaitingSqliteDialect, NodeSqliteDatabase } from './sqlite-dialect.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  poolSize?: number;
  statementTimeoutMs?: number;
}

// Instants are stored as epoch milliseconds in BIGINT columns; pg returns int8 as strings by default.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function dialectOf(url: string): DialectName {
  return url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

function sqlitePath(url: string): string {
  const path = url.slice('sqlite:'.length);
  if (path === ':memory:') return path;
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

const sqliteHandles = new WeakMap<Db, NodeSqliteDatabase>();

/** The node:sqlite handle behind a SQLite Kysely instance (undefined on PostgreSQL). */
export function sqliteHandleOf(db: Db): NodeSqliteDatabase | undefined {
  return sqliteHandles.get(db);
}

/**
 * Runs `work` — a large write on a connection of its own, in a worker thread (a whole company's
 * import) — while this process's SQLite connection waits: every other query waits its turn as it
 * would behind any transaction, where a write on the main connection would otherwise wait for the
 * worker's lock only so long (sqlite-dialect.ts: LOCK_WAIT_MS) and then fail. PostgreSQL needs no
 * such care: `work` just runs.
 */
export async function whileMainConnectionWaits<T>(db: Db, work: () => Promise<T>): Promise<T> {
  if (!sqliteHandleOf(db)) return work();
  return db.connection().execute(work);
}

/** Whether `db` talks to PostgreSQL: unlike `sqliteHandleOf`, true of its transactions as well. */
export function onPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

const pgPools = new WeakMap<Db, pg.Pool>();

/** The connection pool behind a PostgreSQL Kysely instance (undefined on SQLite), for /metrics. */
export function pgPoolOf(db: Db): pg.Pool | undefined {
  return pgPools.get(db);
}

export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  if (dialectOf(url) === 'sqlite') {
    const database = new NodeSqliteDatabase(sqlitePath(url));
    const db = new Kysely<Database>({ dialect: new LockWaitingSqliteDialect(database) });
    sqliteHandles.set(db, database);
    return db;
  }
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    statement_timeout: statementTimeoutMs,
    // The server-side timeout cannot fire across a network partition; this client-side one can.
    query_timeout: statementTimeoutMs + 1_000,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
  });
  // A dropped connection must not crash the process: idle and checked-out clients both emit 'error';
  // the query in flight fails (answered 503) and the pool replaces the client on the next checkout.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pgPools.set(db, pool);
  return db;
}

export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
