// "An accepted event is durable before the 200": what a write commits must be on disk when it returns.
// PostgreSQL's commit already waits for its WAL flush (synchronous_commit = on). SQLite runs in WAL
// mode with synchronous = NORMAL, which survives a crash of the process but may lose the last commits
// on power loss; for the writes that must never be lost (timeclock events, inbound batches) the
// write-ahead log is fsynced after their commit — asynchronously, so the event loop keeps serving.
// Other writes (tokens, grants) skip that sync.
import { sql, type Transaction } from 'kysely';
import { sqliteHandleOf, type Db } from './database.ts';
import type { Database } from './schema.ts';

/** Runs `write` (one statement or a whole transaction) and returns once what it committed is on disk. */
export async function durably<T>(db: Db, write: (db: Db) => Promise<T>): Promise<T> {
  const result = await write(db);
  await sqliteHandleOf(db)?.syncWriteAheadLog();
  return result;
}

type Write = (trx: Transaction<Database>) => Promise<unknown>;

interface Job {
  write: Write;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for small durable writes on SQLite: writes that arrive while a group is committing
 * and syncing run together in the next one, each in its own savepoint (one failing — a lost race on
 * a unique index, say — undoes only itself), made durable by one commit and one disk sync. Every
 * caller's promise settles only after that sync, so each still gets "durable before the answer".
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

  async #runGroup(group: Job[]): Promise<Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>> {
    return durably(this.#db, (db) => db.transaction().execute(async (trx) => {
      const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
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
      return outcomes;
    }));
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    while (this.#queue.length > 0) {
      const group = this.#queue;
      this.#queue = [];
      try {
        const outcomes = await this.#runGroup(group);
        group.forEach((job, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok) job.resolve(outcome.value);
          else job.reject(outcome?.error);
        });
      } catch (error) {
        // The commit or the sync failed: no caller may be told its write is stored.
        for (const job of group) job.reject(error);
      }
    }
    this.#flushing = false;
  }
}

const committers = new WeakMap<Db, GroupCommitter>();

/** Runs a small write durably: grouped with concurrent ones on SQLite, as is on PostgreSQL. */
export async function durablyGrouped<T>(db: Db, write: (db: Db) => Promise<T>): Promise<T> {
  if (!sqliteHandleOf(db)) return write(db);
  let committer = committers.get(db);
  if (!committer) committers.set(db, (committer = new GroupCommitter(db)));
  return committer.run(write);
}
