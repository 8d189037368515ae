// Retention of the change log (CONTRACT §7): changes older than CHANGES_RETENTION_SECONDS are
// removed in the background, every few seconds, by every instance (pruning is idempotent; two
// instances pruning at once remove each row once). "Now" is the context's clock, so tests move it.
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db/database.ts';
import { pruneChanges } from './change-log.ts';

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
