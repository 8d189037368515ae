// The one source of "now" for expiries, limits, sessions and "today", and of the intervals and ages
// measured in this process (the revocation poll, the company cache's freshness). Production reads the
// system clock; tests hand the app a ManualClock and move it instead of sleeping.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Milliseconds from an arbitrary origin that never go back: ages and intervals inside this process. */
  elapsed(): number;
  /**
   * Runs `task` every `intervalMs` of this clock (unref'd: it keeps no process alive); returns what
   * stops it. A task that returns a promise handles its own failures.
   */
  every(intervalMs: number, task: () => unknown): () => void;
}

function everyRealInterval(intervalMs: number, task: () => unknown): () => void {
  const timer = setInterval(task, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export const systemClock: Clock = { now: () => Date.now(), elapsed: () => performance.now(), every: everyRealInterval };

interface Repeating {
  intervalMs: number;
  task: () => unknown;
  /** elapsed() of the task's last run (or of its scheduling). */
  ranAt: number;
}

/**
 * A clock whose "now" stands still until a test moves it. Its ages and intervals run on real time
 * plus every forward move: code waiting on a poll or an expiry is never stranded by a test that does
 * not move the clock, and a test that moves it past a due time needs no sleep.
 */
export class ManualClock implements Clock {
  #ms: number;
  /** Sum of the forward moves, added to real elapsed time. */
  #moved = 0;
  readonly #repeating = new Set<Repeating>();
  #started: Array<Promise<unknown>> = [];

  constructor(start: number = Date.now()) {
    this.#ms = start;
  }

  now(): number {
    return this.#ms;
  }

  elapsed(): number {
    return performance.now() + this.#moved;
  }

  every(intervalMs: number, task: () => unknown): () => void {
    const repeating: Repeating = { intervalMs, task, ranAt: this.elapsed() };
    const stopReal = everyRealInterval(intervalMs, () => this.#run(repeating));
    this.#repeating.add(repeating);
    return () => {
      stopReal();
      this.#repeating.delete(repeating);
    };
  }

  /** Moves "now" by `ms` and runs, once, every repeating task whose interval the move completed. */
  advance(ms: number): void {
    this.#ms += ms;
    if (ms <= 0) return;
    this.#moved += ms;
    for (const repeating of this.#repeating) {
      if (this.elapsed() - repeating.ranAt >= repeating.intervalMs) this.#started.push(Promise.resolve(this.#run(repeating)));
    }
  }

  /** Sets "now"; a jump forward counts as a move (tasks fall due), a jump back moves no interval. */
  set(ms: number): void {
    this.advance(ms - this.#ms);
    this.#ms = ms;
  }

  /** Resolves once the tasks started by moves so far have finished (a poll's database read, say). */
  async settled(): Promise<void> {
    const started = this.#started;
    this.#started = [];
    await Promise.allSettled(started);
  }

  #run(repeating: Repeating): unknown {
    repeating.ranAt = this.elapsed();
    return repeating.task();
  }
}
