// "An accepted event is durable before the 200": what a write commits must be on disk when it returns.
// PostgreSQL's commit already waits for its WAL flush (synchronous_commit = on). SQLite runs in WAL
// mode with synchronous = NORMAL, which survives a crash of the process but may lose the last commits
// on power loss; for the writes that must never be lost (timeclock events, inbound batches) the
// write-ahead log is fsynced after their commit — asynchronously, so the event loop keeps serving.
// Other writes (tokens, grants) skip that sync.
import { CompiledQuery, type InsertQueryBuilder, type InsertResult, type QueryCreator, type Transaction } from 'kysely';
import { sqliteHandleOf, type Db } from './database.ts';
import type { Database } from './schema.ts';

/** What /metrics learns of each commit: how long it took (and its log sync) and how many writes it carried. */
export interface CommitObserver {
  commit(kind: 'durable' | 'plain', seconds: number, writes: number): void;
}

const observers = new WeakMap<Db, CommitObserver>();

/** Reports every commit made through this module on `db` to `observer` (one per database handle). */
export function observeCommits(db: Db, observer: CommitObserver): void {
  observers.set(db, observer);
}

async function timed<T>(db: Db, kind: 'durable' | 'plain', writes: number, commit: () => Promise<T>): Promise<T> {
  const observer = observers.get(db);
  if (!observer) return commit();
  const started = performance.now();
  const result = await commit();
  observer.commit(kind, (performance.now() - started) / 1000, writes);
  return result;
}

async function syncedAfter<T>(db: Db, write: (db: Db) => Promise<T>): Promise<T> {
  const result = await write(db);
  await sqliteHandleOf(db)?.syncWriteAheadLog();
  return result;
}

/**
 * Runs `write` (one statement or a whole transaction, storing `writes` writes) and returns once what
 * it committed is on disk.
 */
export async function durably<T>(db: Db, write: (db: Db) => Promise<T>, writes = 1): Promise<T> {
  return timed(db, 'durable', writes, () => syncedAfter(db, write));
}

// Compiled once: every grouped write runs all three.
const SAVEPOINT = CompiledQuery.raw('SAVEPOINT grouped_write');
const ROLLBACK_TO_SAVEPOINT = CompiledQuery.raw('ROLLBACK TO SAVEPOINT grouped_write');
const RELEASE_SAVEPOINT = CompiledQuery.raw('RELEASE SAVEPOINT grouped_write');

type Write = (trx: Transaction<Database>) => Promise<unknown>;

interface Job {
  write: Write;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for small writes on SQLite: writes that arrive while a group is committing run
 * together in the next one, each in its own savepoint (one failing — a lost race on a unique index,
 * say — undoes only itself), stored by one commit instead of one each. A SQLite commit costs far more
 * than a small insert (WAL frames, locks: ~60 µs against ~40 µs here). Not synced: durable writes
 * that come in groups (timeclock events) store a group in multi-row statements of their own
 * (src/timeclock/store.ts), which costs less than a savepoint per write, and sync it with `durably`.
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
      if (this.#flushing) return;
      this.#flushing = true;
      // node:sqlite answers synchronously, so a group commits within one turn of the event loop and
      // nothing could join it: wait for the end of this turn, when every request that arrived with
      // this one has queued its write.
      setImmediate(() => void this.#flush());
    });
  }

  async #runGroup(group: Job[]): Promise<Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>> {
    const commit = (db: Db) => db.transaction().execute(async (trx) => {
      const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      for (const job of group) {
        await trx.executeQuery(SAVEPOINT);
        try {
          outcomes.push({ ok: true, value: await job.write(trx) });
        } catch (error) {
          await trx.executeQuery(ROLLBACK_TO_SAVEPOINT);
          outcomes.push({ ok: false, error });
        }
        await trx.executeQuery(RELEASE_SAVEPOINT);
      }
      return outcomes;
    });
    return timed(this.#db, 'plain', group.length, () => commit(this.#db));
  }

  async #flush(): Promise<void> {
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
        // The commit failed: no caller may be told its write is stored.
        for (const job of group) job.reject(error);
      }
    }
    this.#flushing = false;
  }
}

const committers = new WeakMap<Db, GroupCommitter>();

function committerFor(db: Db): GroupCommitter {
  let committer = committers.get(db);
  if (!committer) committers.set(db, (committer = new GroupCommitter(db)));
  return committer;
}

/**
 * Reports `commit` — one autocommitted PostgreSQL statement that stores `writes` writes at once (a
 * group of timeclock events, src/timeclock/store.ts) — as one durable commit of that many writes.
 */
export async function durableStatement<T>(db: Db, writes: number, commit: () => Promise<T>): Promise<T> {
  return timed(db, 'durable', writes, commit);
}

/**
 * Runs a small write in one commit with the writes that arrive with it on SQLite (not synced: for
 * what a power loss may take back, such as a token's grant); as is on PostgreSQL, where each
 * statement is its own round trip and grouping would only add BEGIN and COMMIT.
 */
export async function grouped<T>(db: Db, write: (db: Db) => Promise<T>): Promise<T> {
  if (!sqliteHandleOf(db)) return timed(db, 'plain', 1, () => write(db));
  return committerFor(db).run(write);
}

/** An insert not yet run, built on whatever it is given: the database, a transaction or a WITH clause. */
export type PendingInsert = (creator: QueryCreator<Database>) => { [T in keyof Database]: InsertQueryBuilder<Database, T, InsertResult> }[keyof Database];

/**
 * In a PostgreSQL statement, `SET LOCAL synchronous_commit = off` for that statement's own
 * transaction: its commit does not wait for the WAL flush. Only for bookkeeping a crash may take back
 * without harm — a token's grant and its audit entry: the client asks for a token again — never for
 * timeclock events or batches. Measured: 800/s → 3,000–4,000/s for a grant and its audit entry in
 * one statement on this machine.
 */
export const NO_FLUSH_WAIT_SQL = "set_config('synchronous_commit', 'off', true)";

/** Runs `commit` (a statement or transaction that commits `writes` rows of bookkeeping) and reports it to /metrics. */
export function bookkeepingCommit<T>(db: Db, writes: number, commit: () => Promise<T>): Promise<T> {
  return timed(db, 'plain', writes, commit);
}
