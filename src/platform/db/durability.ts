// "An accepted event is durable before the 200": what a write commits must be on disk when it returns.
// PostgreSQL's commit already waits for its WAL flush (synchronous_commit = on). SQLite runs in WAL
// mode with synchronous = NORMAL, which survives a crash of the process but may lose the last commits
// on power loss; for the writes that must never be lost (timeclock events, inbound batches) the
// connection is held and switched to FULL, which syncs the WAL at their commit — and with it every
// commit before. Other writes (tokens, grants) keep the cheaper mode.
import { SqliteAdapter, sql, type Transaction } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';

function isSqlite(db: Db): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

export async function durably<T>(db: Db, write: (db: Db) => Promise<T>): Promise<T> {
  if (!isSqlite(db)) return write(db);
  // Holding the one connection keeps other requests' statements out until the mode is restored.
  return db.connection().execute(async (connection) => {
    await sql`PRAGMA synchronous = FULL`.execute(connection);
    try {
      return await write(connection);
    } finally {
      await sql`PRAGMA synchronous = NORMAL`.execute(connection);
    }
  });
}

type Write = (trx: Transaction<Database>) => Promise<unknown>;

interface Job {
  write: Write;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for small durable writes on SQLite: writes that arrive while a commit is syncing are
 * run together, each in its own savepoint (one failing — a lost race on a unique index, say — undoes
 * only itself), and made durable by one synced commit. Every caller's promise settles only after that
 * commit, so each still gets "durable before the answer", at one disk sync per group, not per write.
 */
class GroupCommitter {
  readonly #db: Db;
  #queue: Job[] = [];
  #flushing = false;

  constructor(db: Db) {
    this.#db = db;
  }

  run<T>(write: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    while (this.#queue.length > 0) {
      const group = this.#queue;
      this.#queue = [];
      const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      try {
        await durably(this.#db, (connection) => connection.transaction().execute(async (trx) => {
          for (const job of group) {
            await sql`SAVEPOINT grouped_write`.execute(trx);
            try {
              outcomes.push({ ok: true, value: await job.write(trx) });
            } catch (error) {
              await sql`ROLLBACK TO SAVEPOINT grouped_write`.execute(trx);
              outcomes.push({ ok: false, error });
            }
            await sql`RELEASE SAVEPOINT grouped_write`.execute(trx);
          }
        }));
      } catch (error) {
        // The commit itself failed: nothing of the group is stored.
        for (const job of group) job.reject(error);
        continue;
      }
      group.forEach((job, i) => {
        const outcome = outcomes[i];
        if (outcome?.ok) job.resolve(outcome.value);
        else job.reject(outcome?.error);
      });
    }
    this.#flushing = false;
  }
}

const committers = new WeakMap<Db, GroupCommitter>();

/** Runs a small write durably: grouped with concurrent ones on SQLite, as is on PostgreSQL. */
export async function durablyGrouped<T>(db: Db, write: (db: Db) => Promise<T>): Promise<T> {
  if (!isSqlite(db)) return write(db);
  let committer = committers.get(db);
  if (!committer) committers.set(db, (committer = new GroupCommitter(db)));
  return committer.run(write);
}
