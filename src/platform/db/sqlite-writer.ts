// A Kysely dialect over a SQLite connection in a worker thread (sqlite-writer-worker.ts), for the one
// transaction that is too large to commit on the event loop: a whole company's import. Statements are
// compiled here and run there; each answer arrives as its own message, so the loop turns between them.
import { Worker } from 'node:worker_threads';
import { CompiledQuery, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type DatabaseConnection, type Dialect, type Driver, type QueryResult } from 'kysely';
import type { WriterAnswer, WriterRequest } from './sqlite-writer-worker.ts';

class WorkerConnection implements DatabaseConnection {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, (answer: WriterAnswer) => void>();
  #next = 0;

  constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (answer: WriterAnswer) => {
      this.#waiting.get(answer.id)?.(answer);
      this.#waiting.delete(answer.id);
    });
  }

  async executeQuery<R>({ sql, parameters }: CompiledQuery): Promise<QueryResult<R>> {
    const id = (this.#next += 1);
    const answer = await new Promise<WriterAnswer>((resolve) => {
      this.#waiting.set(id, resolve);
      this.#worker.postMessage({ id, sql, parameters } satisfies WriterRequest);
    });
    if ('error' in answer) throw Object.assign(new Error(answer.error.message), answer.error);
    if ('rows' in answer) return { rows: answer.rows as R[] };
    return { rows: [], numAffectedRows: BigInt(answer.changes), insertId: BigInt(answer.lastInsertRowid) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('The SQLite writer does not stream.');
  }
}

/** One connection, used by one transaction at a time (the caller's). */
class WorkerDriver implements Driver {
  readonly #path: string;
  #worker: Worker | undefined;
  #connection: WorkerConnection | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  async init(): Promise<void> {
    this.#worker = new Worker(new URL('./sqlite-writer-worker.ts', import.meta.url), { workerData: { path: this.#path } });
    this.#connection = new WorkerConnection(this.#worker);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection as WorkerConnection;
  }

  // The write lock at once: the caller holds the main connection, so only another process can hold it.
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    this.#worker?.postMessage('close');
    await new Promise((resolve) => this.#worker?.once('exit', resolve));
  }
}

/** SQLite, compiled here, run by a connection to the file at `path` in a worker thread. */
export function sqliteWriterDialect(path: string): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new WorkerDriver(path),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
