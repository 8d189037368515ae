// Gathers concurrent calls into batches, so that one database statement serves many requests: calls
// that arrive in the same turn of the event loop, or while the previous batch runs, go together into
// the next one. One batch runs at a time, so a busy service sends bigger batches rather than more of
// them (on PostgreSQL a statement's fixed cost — round trip, parse, plan, commit flush — dominates a
// small write; docs/timeclock.md).

/** What a batch answers for each of its items, in their order. */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export class Batcher<I, O> {
  readonly #run: (items: I[]) => Promise<Array<Outcome<O>>>;
  readonly #maxSize: number;
  #queue: Array<Waiting<I, O>> = [];
  #running = false;

  /**
   * `run` receives at most `maxSize` items and answers one outcome per item, in order; an item's
   * failure is its outcome, so it never fails its neighbours. Should `run` itself throw, every item of
   * that batch fails with the error.
   */
  constructor(run: (items: I[]) => Promise<Array<Outcome<O>>>, maxSize: number) {
    this.#run = run;
    this.#maxSize = maxSize;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#running) return;
      this.#running = true;
      // Wait for the end of this turn: the requests parsed in it queue their items too.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxSize);
      try {
        const outcomes = await this.#run(batch.map((waiting) => waiting.item));
        batch.forEach((waiting, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok) waiting.resolve(outcome.value);
          else waiting.reject(outcome ? outcome.error : new Error('Batcher: no outcome for an item'));
        });
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.#running = false;
  }
}
