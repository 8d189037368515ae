// Concurrent callers asking for the same work share one run of it: the first starts it, the others
// join it until it settles (resolved or rejected); a caller after that starts it afresh. Holds only
// the work in flight, so it needs no bound beyond the callers waiting on it.
export class SingleFlight<T> {
  readonly #running = new Map<string, Promise<T>>();

  /** The run of `key` in flight, joined; or `work` started as it. */
  run(key: string, work: () => Promise<T>): { joined: boolean; outcome: Promise<T> } {
    const running = this.#running.get(key);
    if (running) return { joined: true, outcome: running };
    const outcome = work().finally(() => this.#running.delete(key));
    this.#running.set(key, outcome);
    return { joined: false, outcome };
  }
}
