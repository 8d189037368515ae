// The one source of "now" for expiries, limits, sessions and "today". Production reads the system
// clock; tests hand the app a ManualClock and move it instead of sleeping.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still until a test moves it. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: number = Date.now()) {
    this.#ms = start;
  }

  now(): number {
    return this.#ms;
  }

  advance(ms: number): void {
    this.#ms += ms;
  }

  set(ms: number): void {
    this.#ms = ms;
  }
}
