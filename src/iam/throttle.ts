// Rate limits and failure penalties of the identity endpoints (CONTRACT §2 "Rate limits").
// Counters live behind a small store interface: in memory for a single instance, in Redis when
// REDIS_URL is set so every instance shares them.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A penalty in force: attempts are refused until `until`; `level` doubles the next one. */
export interface Penalty {
  until: number;
  level: number;
}

export interface ThrottleStore {
  /** Counts one request in the fixed window `windowKey` (which lives `windowMs`); returns the count. */
  countRequest(windowKey: string, windowMs: number): Promise<number>;
  /** Records a failure at `now` and returns how many fell within the last `windowMs`. */
  recordFailure(key: string, windowMs: number, now: number): Promise<number>;
  penalty(key: string): Promise<Penalty | undefined>;
  setPenalty(key: string, penalty: Penalty, ttlMs: number): Promise<void>;
  /** Forgets the failures and the penalty of `key` (a success). */
  reset(key: string): Promise<void>;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/** For a single instance (and tests). Expired entries are swept as the maps grow. */
export class MemoryThrottleStore implements ThrottleStore {
  readonly #counters = new Map<string, Entry<number>>();
  readonly #failures = new Map<string, Entry<number[]>>();
  readonly #penalties = new Map<string, Entry<Penalty>>();

  #live<T>(map: Map<string, Entry<T>>, key: string, now = Date.now()): T | undefined {
    const entry = map.get(key);
    if (entry && entry.expiresAt > now) return entry.value;
    map.delete(key);
    return undefined;
  }

  #put<T>(map: Map<string, Entry<T>>, key: string, value: T, ttlMs: number): void {
    if (map.size > 10_000) {
      const now = Date.now();
      for (const [k, e] of map) if (e.expiresAt <= now) map.delete(k);
    }
    map.set(key, { value, expiresAt: Date.now() + ttlMs });
  }

  async countRequest(windowKey: string, windowMs: number): Promise<number> {
    const entry = this.#counters.get(windowKey);
    if (entry && entry.expiresAt > Date.now()) return ++entry.value;
    this.#put(this.#counters, windowKey, 1, windowMs);
    return 1;
  }

  async recordFailure(key: string, windowMs: number, now: number): Promise<number> {
    const recent = (this.#live(this.#failures, key, now) ?? []).filter((at) => at > now - windowMs);
    recent.push(now);
    this.#put(this.#failures, key, recent, windowMs);
    return recent.length;
  }

  async penalty(key: string): Promise<Penalty | undefined> {
    return this.#live(this.#penalties, key);
  }

  async setPenalty(key: string, penalty: Penalty, ttlMs: number): Promise<void> {
    this.#put(this.#penalties, key, penalty, ttlMs);
  }

  async reset(key: string): Promise<void> {
    this.#failures.delete(key);
    this.#penalties.delete(key);
  }
}

/** Shared by every instance. Failures are a sorted set of timestamps (a true sliding window). */
export class RedisThrottleStore implements ThrottleStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix = 'wfs:iam:') {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  async countRequest(windowKey: string, windowMs: number): Promise<number> {
    const key = `${this.#prefix}rl:${windowKey}`;
    const results = await this.#redis.multi().set(key, 0, 'PX', windowMs, 'NX').incr(key).exec();
    return Number(results?.[1]?.[1] ?? 0);
  }

  async recordFailure(key: string, windowMs: number, now: number): Promise<number> {
    const redisKey = `${this.#prefix}fail:${key}`;
    const results = await this.#redis
      .multi()
      .zremrangebyscore(redisKey, 0, now - windowMs)
      .zadd(redisKey, now, `${now}:${randomBytes(6).toString('hex')}`)
      .zcard(redisKey)
      .pexpire(redisKey, windowMs)
      .exec();
    return Number(results?.[2]?.[1] ?? 0);
  }

  async penalty(key: string): Promise<Penalty | undefined> {
    const raw = await this.#redis.get(`${this.#prefix}pen:${key}`);
    return raw ? (JSON.parse(raw) as Penalty) : undefined;
  }

  async setPenalty(key: string, penalty: Penalty, ttlMs: number): Promise<void> {
    await this.#redis.set(`${this.#prefix}pen:${key}`, JSON.stringify(penalty), 'PX', ttlMs);
  }

  async reset(key: string): Promise<void> {
    await this.#redis.del(`${this.#prefix}fail:${key}`, `${this.#prefix}pen:${key}`);
  }
}

export const FAILURE_WINDOW_MS = 15 * 60_000;
export const FAILURES_BEFORE_PENALTY = 5;
export const MAX_PENALTY_SECONDS = 15 * 60;
const RATE_WINDOW_MS = 60_000;

/** The endpoints whose requests are counted per client, each with its own budget. */
export type LimitedEndpoint = 'token' | 'idToken' | 'login' | 'revoke';

/** `retryAfter` in whole seconds, or undefined when the request may proceed. */
export type Verdict = { retryAfter: number } | undefined;

export class Throttle {
  readonly #store: ThrottleStore;
  readonly #perMinute: number;
  readonly #onError: (error: unknown) => void;

  constructor(store: ThrottleStore, perMinute: number, onError: (error: unknown) => void) {
    this.#store = store;
    this.#perMinute = perMinute;
    this.#onError = onError;
  }

  // A broken counter store must not take logins down with it: the limits fail open (and are logged).
  async #guard<T>(work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.#onError(error);
      return fallback;
    }
  }

  /** Counts a request of `clientId` at `endpoint` against RATE_LIMIT_TOKEN_PER_MINUTE. */
  async limit(endpoint: LimitedEndpoint, clientId: string, now = Date.now()): Promise<Verdict> {
    const window = Math.floor(now / RATE_WINDOW_MS);
    const count = await this.#guard(() => this.#store.countRequest(`${endpoint}:${clientId}:${window}`, RATE_WINDOW_MS), 0);
    if (count <= this.#perMinute) return undefined;
    return { retryAfter: Math.max(1, Math.ceil(((window + 1) * RATE_WINDOW_MS - now) / 1000)) };
  }

  /** Whether attempts of `clientId` from `address` are currently penalised. */
  async penalised(clientId: string, address: string, now = Date.now()): Promise<Verdict> {
    const penalty = await this.#guard(() => this.#store.penalty(penaltyKey(clientId, address)), undefined);
    if (!penalty || penalty.until <= now) return undefined;
    return { retryAfter: Math.max(1, Math.ceil((penalty.until - now) / 1000)) };
  }

  /**
   * Records a failed login or client authentication. From the fifth failure within 15 minutes each
   * further failure blocks attempts for twice as long as the previous block (1 s, 2 s, … 15 min).
   * The penalty record outlives its block by the failure window so the doubling carries on.
   */
  async failed(clientId: string, address: string, now = Date.now()): Promise<void> {
    const key = penaltyKey(clientId, address);
    await this.#guard(async () => {
      const failures = await this.#store.recordFailure(key, FAILURE_WINDOW_MS, now);
      const previous = await this.#store.penalty(key);
      if (!previous && failures < FAILURES_BEFORE_PENALTY) return;
      const level = previous ? previous.level + 1 : 0;
      const seconds = Math.min(2 ** level, MAX_PENALTY_SECONDS);
      await this.#store.setPenalty(key, { until: now + seconds * 1000, level }, seconds * 1000 + FAILURE_WINDOW_MS);
    }, undefined);
  }

  async succeeded(clientId: string, address: string): Promise<void> {
    await this.#guard(() => this.#store.reset(penaltyKey(clientId, address)), undefined);
  }
}

function penaltyKey(clientId: string, address: string): string {
  return `${clientId}|${address}`;
}
