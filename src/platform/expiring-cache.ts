// A bounded in-memory cache whose entries expire, for per-instance state kept between requests.

/**
 * Entries no older than their expiry, at most `max` keys, the least recently used evicted first: a
 * Map keeps insertion order, so a read moves its key to the end and the first key is the oldest. O(1)
 * insert, read, delete and eviction. (lru-cache refilled its `max`-slot arrays whenever its last
 * entry was deleted — every successful client authentication of a lone client: 14 % of a token
 * request's CPU in the bench's profile.)
 */
export class ExpiringCache<T extends object> {
  readonly #entries = new Map<string, { value: T; expiresAt: number }>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now: number): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: T, expiresAt: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt });
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
