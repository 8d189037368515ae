// The PostgreSQL read watermark of the change log: the highest seq below which every change that
// will ever exist has already committed (or aborted). Readers return only changes up to it, so a
// change that commits late with a smaller seq can never be skipped. docs/changes.md has the proof.
//
// Each writer draws its seq through company_changes_next_seq(), which first takes a shared advisory
// lock that its transaction holds to its end (shared locks never wait for each other). A sample pairs
// the sequence's last value L (read first) with the transactions holding that lock afterwards, H:
// every transaction that drew a seq ≤ L took the lock before L was read, so it is in H unless it has
// already ended. Once none of H holds the lock any more, all of them have ended (PostgreSQL releases
// a transaction's locks after its commit became visible), and L is safe. Samples wait in a short
// queue until then. Only writers of changes count: unrelated long transactions delay nothing.
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.ts';

/** The advisory lock key of migration 0009's company_changes_next_seq(). */
const LOCK_CLASS = 1464226593;
const LOCK_OBJECT = 1;

interface Sample {
  /** The sequence's value when sampled. */
  lastSeq: number;
  /** The transactions (virtual ids) that held the writers' lock just after lastSeq was read. */
  writers: string[];
}

/** Samples waiting for their writers to end; when full, new ones are skipped (they only add progress). */
const MAX_PENDING = 32;

export class Watermark {
  readonly #db: Db;
  #safe = 0;
  #pending: Sample[] = [];

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * The highest seq safe to read now. Call it before the rows' query: their statement's snapshot is
   * taken later, so every committed change up to the answer is visible to it.
   */
  async current(): Promise<number> {
    const sequence = await sql<{ last_value: number; is_called: boolean }>`select last_value, is_called from company_changes_seq`.execute(this.#db);
    const row = sequence.rows[0];
    const lastSeq = row?.is_called ? Number(row.last_value) : 0;
    const writers = await this.#writers();
    if (lastSeq > this.#safe && this.#pending.length < MAX_PENDING) this.#pending.push({ lastSeq, writers: [...writers] });
    this.#promote(writers);
    return this.#safe;
  }

  /** Whether changes exist that are not yet safe to read (a reader should look again soon). */
  get behind(): boolean {
    return this.#pending.length > 0;
  }

  async #writers(): Promise<Set<string>> {
    const holders = await sql<{ virtualtransaction: string }>`
      select virtualtransaction from pg_locks
      where locktype = 'advisory' and classid = ${LOCK_CLASS} and objid = ${LOCK_OBJECT} and objsubid = 2 and granted
        and database = (select oid from pg_database where datname = current_database())`.execute(this.#db);
    return new Set(holders.rows.map((holder) => holder.virtualtransaction));
  }

  #promote(running: Set<string>): void {
    const waiting: Sample[] = [];
    for (const sample of this.#pending) {
      if (sample.writers.every((writer) => !running.has(writer))) this.#safe = Math.max(this.#safe, sample.lastSeq);
      else waiting.push(sample);
    }
    this.#pending = waiting.filter((sample) => sample.lastSeq > this.#safe);
  }
}

const watermarks = new WeakMap<Db, Watermark>();

/** The watermark of this database handle (one per instance: it only remembers samples). */
export function watermarkOf(db: Db): Watermark {
  let watermark = watermarks.get(db);
  if (!watermark) watermarks.set(db, (watermark = new Watermark(db)));
  return watermark;
}
