// The interface's rule for timeclock events: one person's events go in chronological order, and the
// next is sent only after the previous one got its 200. So each person has a queue. A lost
// connection or a 5xx is retried with the SAME eventId (the service answers a replay with the
// original 200, so nothing is stored twice); a 4xx such as 409 out_of_order is the caller's to handle
// and does not hold up that person's later events. Different people are sent in parallel.
import { ApiError, NetworkError } from './errors.ts';
import { backoffMs, sleep } from './http.ts';

export interface QueuedEvent {
  eventId?: string;
  badgeId?: string | null;
  userId?: string | null;
}

export interface TimeclockQueueOptions {
  /** First wait before resending, in milliseconds (doubles, capped at `maxBackoffMs`). Default 500. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Give up after this many attempts; default: never (a punch that happened must arrive). */
  maxAttempts?: number;
}

function isTransient(error: unknown): boolean {
  return error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
}

/** The queue key: events for one person share it. Use one identifier (badge or user) per person. */
function personOf(event: QueuedEvent): string {
  if (event.badgeId != null) return `badge:${event.badgeId}`;
  if (event.userId != null) return `user:${event.userId}`;
  throw new TypeError('A timeclock event names exactly one of badgeId and userId.');
}

export class TimeclockQueue<E extends QueuedEvent, R> {
  readonly #post: (event: E & { eventId: string }) => Promise<R>;
  readonly #options: Required<TimeclockQueueOptions>;
  readonly #tails = new Map<string, Promise<void>>();

  constructor(post: (event: E & { eventId: string }) => Promise<R>, options: TimeclockQueueOptions = {}) {
    this.#post = post;
    this.#options = { backoffMs: 500, maxBackoffMs: 30_000, maxAttempts: Infinity, ...options };
  }

  /** Queues the event behind the person's earlier ones; resolves with the stored event. */
  send(event: E): Promise<R> {
    const withId = { ...event, eventId: event.eventId ?? globalThis.crypto.randomUUID() };
    const person = personOf(event);
    const previous = this.#tails.get(person) ?? Promise.resolve();
    const result = previous.then(() => this.#deliver(withId));
    const tail = result.then(() => undefined, () => undefined);
    this.#tails.set(person, tail);
    void tail.then(() => {
      if (this.#tails.get(person) === tail) this.#tails.delete(person);
    });
    return result;
  }

  /** Resolves when every queued event has been delivered or has failed. */
  async drain(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }

  async #deliver(event: E & { eventId: string }): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#post(event);
      } catch (error) {
        if (!isTransient(error) || attempt >= this.#options.maxAttempts) throw error;
        await sleep(backoffMs(this.#options, attempt - 1, this.#options.maxBackoffMs));
      }
    }
  }
}
