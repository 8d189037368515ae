// Retention of the change log (CONTRACT §7): changes older than CHANGES_RETENTION_SECONDS are
// removed in the background, every few seconds, by every instance (pruning is idempotent; two
// instances pruning at once remove each row once). "Now" is the context's clock, so tests move it.
// Each removal raises the horizon of its (company, type), read back by prunedThrough, so a reader
// whose cursor points below a pruned change is told so instead of silently skipping it.
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db/database.ts';
import type { Database } from '../platform/db/schema.ts';

/** CONTRACT §7 asks for at least every 10 seconds. */
export const PRUNE_INTERVAL_MS = 5_000;

export class ChangeRetention {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #retentionMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(db: Db, clock: Clock, retentionSeconds: number) {
    this.#db = db;
    this.#clock = clock;
    this.#retentionMs = retentionSeconds * 1000;
  }

  /** Removes what has expired by the clock now; concurrent calls share one run. */
  pruneNow(): Promise<number> {
    this.#running ??= pruneChanges(this.#db, this.#clock.now() - this.#retentionMs).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  start(onError: (error: unknown) => void): void {
    this.#timer = setInterval(() => void this.pruneNow().catch(onError), PRUNE_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running?.catch(() => {});
  }
}

/**
 * The highest seq of this company that retention has removed among changes of `types` (every type
 * when empty), 0 when none: a cursor below it would have had to return a pruned change. One read of
 * the horizons' primary key (at most one row a type).
 */
export async function prunedThrough(db: Db, companyId: string, types: readonly string[]): Promise<number> {
  let query = db.selectFrom('company_change_type_horizons').select((eb) => eb.fn.max('pruned_through').as('pruned_through')).where('company_id', '=', companyId);
  if (types.length > 0) query = query.where('type', 'in', [...types]);
  const row = await query.executeTakeFirst();
  return Number(row?.pruned_through ?? 0);
}

/** Rows looked at per pruning step. */
const PRUNE_BATCH = 1000;

/** The larger of `table`'s stored horizon and the new one (both databases): horizons never go down. */
function raised(table: 'company_change_type_horizons' | 'company_change_horizons') {
  const stored = sql.ref(`${table}.pruned_through`);
  return sql<number>`case when excluded.pruned_through > ${stored} then excluded.pruned_through else ${stored} end`;
}

/**
 * Removes the changes recorded before `cutoff` (epoch ms), oldest seq first, and raises the horizon
 * of each (company, type) it removed in the same transaction, so a reader that misses a pruned row
 * also sees why. Walks the log in seq order and stops at the first change still kept: seq and
 * recorded_at grow together (up to clock jitter between instants), so no index on time is needed.
 * Returns how many changes it removed.
 */
export async function pruneChanges(db: Db, cutoff: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const step = await db.transaction().execute(async (trx) => {
      const oldest = await trx.selectFrom('company_changes').select(['seq', 'company_id', 'type', 'recorded_at']).orderBy('seq').limit(PRUNE_BATCH).execute();
      const expired = oldest.slice(0, prefixLength(oldest, cutoff));
      if (expired.length === 0) return { count: 0, more: false };
      // By the seqs read, not a range: a change committing meanwhile inside the range keeps its row.
      await trx.deleteFrom('company_changes').where('seq', 'in', expired.map((row) => Number(row.seq))).execute();
      await raiseHorizons(trx, expired);
      return { count: expired.length, more: expired.length === PRUNE_BATCH };
    });
    removed += step.count;
    if (!step.more) return removed;
  }
}

/**
 * Two statements a batch, whatever it holds: one row per (company, type) pruned, then the
 * company-wide horizon an older release reads during a rolling deploy. That one comes second, so
 * migration 0017's trigger finds it explained by a type's horizon and leaves the other types alone.
 */
async function raiseHorizons(trx: Transaction<Database>, expired: ReadonlyArray<{ seq: number; company_id: string; type: string }>): Promise<void> {
  const byType = new Map<string, { company_id: string; type: string; pruned_through: number }>();
  const byCompany = new Map<string, { company_id: string; pruned_through: number }>();
  // Rows come in seq order: the last of each key is its highest.
  for (const row of expired) {
    byType.set(`${row.company_id} ${row.type}`, { company_id: row.company_id, type: row.type, pruned_through: Number(row.seq) });
    byCompany.set(row.company_id, { company_id: row.company_id, pruned_through: Number(row.seq) });
  }
  // In key order: two instances pruning disjoint rows at once lock shared horizons in the same order (no deadlock).
  const inKeyOrder = <T>(rows: Map<string, T>) => [...rows.keys()].sort().map((key) => rows.get(key) as T);
  await trx.insertInto('company_change_type_horizons').values(inKeyOrder(byType))
    .onConflict((oc) => oc.columns(['company_id', 'type']).doUpdateSet({ pruned_through: raised('company_change_type_horizons') })).execute();
  await trx.insertInto('company_change_horizons').values(inKeyOrder(byCompany))
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ pruned_through: raised('company_change_horizons') })).execute();
}

function prefixLength(rows: ReadonlyArray<{ recorded_at: number }>, cutoff: number): number {
  const kept = rows.findIndex((row) => Number(row.recorded_at) >= cutoff);
  return kept === -1 ? rows.length : kept;
}
