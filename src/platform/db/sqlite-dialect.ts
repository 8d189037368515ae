// Kysely's SqliteDialect expects a better-sqlite3-shaped handle; this adapts Node's built-in
// node:sqlite so the embedded default needs no native build. Prepared statements are cached per SQL
// text because Kysely prepares on every execution.
//
// Several processes may write to one file (the server, `wfs`, the import's worker thread), and
// SQLite lets one of them write at a time. Two rules make them wait for each other instead of
// failing, without holding an event loop:
// - Every transaction begins IMMEDIATE: it takes the write lock before its first statement. Kysely's
//   plain BEGIN takes it at the first write, and a transaction that read first and found another
//   connection had committed since could not take it at all: SQLITE_BUSY at once (BUSY_SNAPSHOT),
//   no waiting — `wfs import` and `seed-demo` failed so beside a server taking writes.
// - Waiting for the lock is asynchronous. SQLite's busy handler (busy_timeout) sleeps on the calling
//   thread, which for the server is the one serving every request: a write that waited a second for
//   `wfs import` froze the whole process for that second. Instead the connection has no busy
//   timeout, and a statement refused with SQLITE_BUSY outside a transaction — a BEGIN IMMEDIATE or an
//   autocommitted statement, neither of which did anything — is tried again on a timer, for up to
//   LOCK_WAIT_MS; then it fails, which the server answers 503 database_unavailable.
import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { DatabaseSync, type StatementSync, type SQLInputValue, type SQLOutputValue } from 'node:sqlite';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type QueryResult, type SqliteDatabase, type SqliteStatement } from 'kysely';

const STATEMENT_CACHE_SIZE = 500;
/**
 * With background checkpoints the server's own connection checkpoints only past this many WAL pages
 * (~40 MB): a safety net should the worker fall behind, never the normal path.
 */
const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;
/** How long a statement waits for another connection's write lock before it fails (docs/errors.md: 503). */
const LOCK_WAIT_MS = 5_000;
/** The longest pause between two tries for the lock: how late a waiting write may notice it is free. */
const LOCK_RETRY_MAX_MS = 16;
const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

/**
 * The primary result code of a node:sqlite error (SQLITE_BUSY is 5, SQLITE_LOCKED 6), its extended
 * forms included (BUSY_SNAPSHOT, 517, keeps it in the low byte); undefined for any other error.
 */
export function sqliteErrorCode(error: unknown): number | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  return code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' ? errcode & 0xff : undefined;
}

const SQLITE_BUSY = 5;

function isSqliteBusy(error: unknown): boolean {
  return sqliteErrorCode(error) === SQLITE_BUSY;
}

export function toSqliteValue(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === undefined) return null;
  return value as SQLInputValue;
}

function adapt(stmt: StatementSync): SqliteStatement {
  const reader = stmt.columns().length > 0;
  return {
    reader,
    all: (parameters) => stmt.all(...parameters.map(toSqliteValue)),
    run: (parameters) => {
      const result = stmt.run(...parameters.map(toSqliteValue));
      return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
    },
    iterate: (parameters) => stmt.iterate(...parameters.map(toSqliteValue)) as IterableIterator<unknown>,
  };
}

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #path: string;
  readonly #statements = new Map<string, SqliteStatement>();
  #wal: Promise<FileHandle | undefined> | undefined;
  #reader: { db: DatabaseSync; statements: Map<string, StatementSync> } | undefined;
  #checkpointer: Worker | undefined;

  constructor(path: string) {
    this.#path = path;
    this.#db = new DatabaseSync(path);
    // WAL lets the CLI write while the server reads. No busy_timeout: waits for the write lock are
    // asynchronous (LockWaitingConnection).
    this.#db.exec('PRAGMA journal_mode = WAL');
    this.#db.exec('PRAGMA synchronous = NORMAL');
    this.#db.exec('PRAGMA foreign_keys = ON');
    // A grouped commit runs each write in a savepoint (durability.ts), so SQLite journals every page a
    // write touches that an earlier write of the group had already changed: past 64 KiB (a group of
    // a dozen tokens) that statement journal spilled to a temporary file, opened, unlinked and written
    // page by page (~20 pwrite calls per token). In memory instead: 400 → 270 µs of CPU per token
    // (docs/benchmarks.md). Also keeps sorts and temporary indexes in memory; their size follows the
    // query's result, which the service holds in memory anyway.
    this.#db.exec('PRAGMA temp_store = MEMORY');
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      statement = adapt(this.#db.prepare(sql));
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * One row by a hot, tiny query, read synchronously on a second, read-only connection: it sees only
   * committed data (a WAL snapshot), never a transaction in flight on the main connection, and skips
   * Kysely's per-query work and the connection mutex. For per-request look-ups such as a company's
   * data version; everything else goes through Kysely.
   */
  readCommittedRow(sql: string, parameters: readonly SQLInputValue[]): Record<string, SQLOutputValue> | undefined {
    if (this.#path === ':memory:') return this.#db.prepare(sql).get(...parameters);
    if (!this.#reader) {
      const reader = new DatabaseSync(this.#path, { readOnly: true });
      reader.exec('PRAGMA busy_timeout = 5000');
      this.#reader = { db: reader, statements: new Map() };
    }
    let statement = this.#reader.statements.get(sql);
    if (!statement) this.#reader.statements.set(sql, (statement = this.#reader.db.prepare(sql)));
    return statement.get(...parameters);
  }

  /**
   * Makes every transaction committed so far durable: fsyncs the write-ahead log (as
   * synchronous = FULL would at each commit), but on libuv's thread pool, so the event loop keeps
   * serving while the disk syncs. Frames already checkpointed were synced by the checkpoint.
   */
  async syncWriteAheadLog(): Promise<void> {
    if (this.#path === ':memory:') return;
    this.#wal ??= open(`${this.#path}-wal`, 'r').catch(() => undefined);
    const wal = await this.#wal;
    if (wal) await wal.sync();
    else this.#wal = undefined;
  }

  /**
   * Moves WAL checkpoints off the event loop. By default SQLite checkpoints inside the commit that
   * takes the log past 1,000 pages: that commit copies the pages back and fsyncs the database, on the
   * thread that serves requests. Measured on 5,000-row batches: median 145 ms with those
   * checkpoints, 80 ms without. A worker thread with its own connection checkpoints instead.
   * `onError` hears about a checkpoint that failed (the fallback still bounds the log).
   */
  checkpointInBackground(intervalMs: number, onError: (message: string) => void): void {
    if (this.#path === ':memory:' || this.#checkpointer) return;
    this.#db.exec(`PRAGMA wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), { workerData: { path: this.#path, intervalMs } });
    worker.on('message', (message: { error?: string }) => message.error && onError(message.error));
    worker.on('error', (error: Error) => onError(error.message));
    // It must never keep a process alive that is otherwise done.
    worker.unref();
    this.#checkpointer = worker;
  }

  /** Whether a transaction is open on the main connection. */
  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  /** The database file (or `:memory:`). */
  get path(): string {
    return this.#path;
  }

  close(): void {
    this.#checkpointer?.postMessage('stop');
    this.#checkpointer = undefined;
    void this.#wal?.then((wal) => wal?.close());
    if (this.#reader?.db.isOpen) this.#reader.db.close();
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}

/**
 * Kysely's connection over `database`, trying a statement refused with SQLITE_BUSY outside a
 * transaction again on a timer (see the top of this file). node:sqlite answers synchronously, so a
 * statement that gets the lock costs no more than before: no promise, no timer.
 */
class LockWaitingConnection implements DatabaseConnection {
  readonly #inner: DatabaseConnection;
  readonly #database: NodeSqliteDatabase;

  constructor(inner: DatabaseConnection, database: NodeSqliteDatabase) {
    this.#inner = inner;
    this.#database = database;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return this.#inner.executeQuery<R>(query);
    } catch (error) {
      return this.#waitForLock<R>(query, error);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.#inner.streamQuery<R>(query, chunkSize);
  }

  /**
   * Only outside a transaction: a BEGIN IMMEDIATE or an autocommitted statement, refused before it
   * did anything. A transaction holds the lock from its BEGIN, so a refusal inside one is no wait.
   */
  #mayWait(error: unknown): boolean {
    return isSqliteBusy(error) && !this.#database.inTransaction;
  }

  /** `query` again once `refusal` (its first try's error) was the lock being taken, until LOCK_WAIT_MS have passed. */
  async #waitForLock<R>(query: CompiledQuery, refusal: unknown): Promise<QueryResult<R>> {
    if (!this.#mayWait(refusal)) throw refusal;
    const deadline = performance.now() + LOCK_WAIT_MS;
    for (let pause = 1; ; pause = Math.min(pause * 2, LOCK_RETRY_MAX_MS)) {
      await sleep(Math.min(pause, Math.max(0, deadline - performance.now())));
      try {
        return await this.#inner.executeQuery<R>(query);
      } catch (error) {
        if (!this.#mayWait(error) || performance.now() >= deadline) throw error;
      }
    }
  }
}

/** Kysely's SQLite driver, with transactions that begin IMMEDIATE on a LockWaitingConnection. */
class LockWaitingDriver extends SqliteDriver {
  readonly #database: NodeSqliteDatabase;
  #connection: LockWaitingConnection | undefined;

  constructor(database: NodeSqliteDatabase) {
    super({ database });
    this.#database = database;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    return (this.#connection ??= new LockWaitingConnection(inner, this.#database));
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(BEGIN_IMMEDIATE);
  }
}

/** Kysely's SQLite dialect over `database`, waiting for other connections' write locks as above. */
export class LockWaitingSqliteDialect extends SqliteDialect {
  readonly #database: NodeSqliteDatabase;

  constructor(database: NodeSqliteDatabase) {
    super({ database });
    this.#database = database;
  }

  override createDriver(): Driver {
    return new LockWaitingDriver(this.#database);
  }
}
