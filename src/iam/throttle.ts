// Rate limits and failure penalties of the identity endpoints (contract: identity and access, "Rate limits").
// Counters live behind a small store interface: in memory for a single instance, in Redis when
// REDIS_URL is set so every instance shares them.
//
// An attempt (a login or a client authentication) is counted as a failure BEFORE its secret is
// checked, in one atomic step with the penalty check: checking a secret is slow, so counting after it
// let parallel guesses all pass the check before any failure was written. A success then clears the
// count; a failure simply keeps the attempt it reserved.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import type { Clock } from '../platform/clock.ts';
import { ExpiringCache } from '../platform/expiring-cache.ts';
import { SingleFlight } from '../platform/single-flight.ts';
import type { OAuthClient } from './clients.ts';

export const FAILURE_WINDOW_MS = 15 * 60_000;
export const FAILURES_BEFORE_PENALTY = 5;
export const MAX_PENALTY_SECONDS = 15 * 60;
const RATE_WINDOW_MS = 60_000;

/** A penalty in force: attempts are refused until `until`; `level` doubles the next one. */
export interface Penalty {
  until: number;
  level: number;
}

export interface ThrottleStore {
  /** Counts one request in the fixed window `windowKey` (which lives `windowMs` from `now`); returns the count. */
  countRequest(windowKey: string, windowMs: number, now: number): Promise<number>;
  /**
   * Atomically: while a penalty of `key` is in force, refuses the attempt (returns the penalty's end);
   * otherwise records the attempt as a failure at `now` and, from the `failuresBeforePenalty`th
   * failure within the failure window (or while a penalty record lives), sets the next penalty.
   * Returns undefined when the attempt may go ahead.
   */
  reserveAttempt(key: string, now: number, failuresBeforePenalty?: number): Promise<number | undefined>;
  /** Forgets the failures and the penalty of `key` (a success). */
  reset(key: string): Promise<void>;
  /** The end of the penalty of `key` in force at `now`, or undefined: a check that records nothing. */
  penaltyUntil(key: string, now: number): Promise<number | undefined>;
}

/**
 * The penalty after an attempt that made `failures` failures in the window: none for the first four
 * (by default); then 1 s, doubling with each further failure up to 15 minutes. The record outlives its
 * block by the failure window so the doubling carries on. The Redis script below is the same rule in Lua.
 */
export function nextPenalty(previous: Penalty | undefined, failures: number, now: number, failuresBeforePenalty = FAILURES_BEFORE_PENALTY): { penalty: Penalty; ttlMs: number } | undefined {
  if (!previous && failures < failuresBeforePenalty) return undefined;
  const level = previous ? previous.level + 1 : 0;
  const ms = Math.min(2 ** level, MAX_PENALTY_SECONDS) * 1000;
  return { penalty: { until: now + ms, level }, ttlMs: ms + FAILURE_WINDOW_MS };
}

/** Entries each kind of counter keeps at most by default (least recently used go first). */
export const MEMORY_STORE_MAX_ENTRIES = 50_000;

/**
 * For a single instance (and tests). Each kind of counter is a bounded LRU, so a flood of made-up
 * client ids costs constant time per request and bounded memory; request counters and failures are
 * kept apart from penalties, so such a flood cannot evict a penalty in force.
 */
export class MemoryThrottleStore implements ThrottleStore {
  readonly #counters: ExpiringCache<{ count: number }>;
  readonly #failures: ExpiringCache<number[]>;
  readonly #penalties: ExpiringCache<Penalty>;

  constructor(maxEntries = MEMORY_STORE_MAX_ENTRIES) {
    this.#counters = new ExpiringCache(maxEntries);
    this.#failures = new ExpiringCache(maxEntries);
    this.#penalties = new ExpiringCache(maxEntries);
  }

  /** How many entries the store holds, of every kind (for tests of its bound). */
  get size(): number {
    return this.#counters.size + this.#failures.size + this.#penalties.size;
  }

  async countRequest(windowKey: string, windowMs: number, now: number): Promise<number> {
    const counter = this.#counters.get(windowKey, now);
    if (counter) return ++counter.count;
    this.#counters.set(windowKey, { count: 1 }, now + windowMs);
    return 1;
  }

  async reserveAttempt(key: string, now: number, failuresBeforePenalty = FAILURES_BEFORE_PENALTY): Promise<number | undefined> {
    const previous = this.#penalties.get(key, now);
    if (previous && previous.until > now) return previous.until;
    const failures = (this.#failures.get(key, now) ?? []).filter((at) => at > now - FAILURE_WINDOW_MS);
    failures.push(now);
    this.#failures.set(key, failures, now + FAILURE_WINDOW_MS);
    const next = nextPenalty(previous, failures.length, now, failuresBeforePenalty);
    if (next) this.#penalties.set(key, next.penalty, now + next.ttlMs);
    return undefined;
  }

  async reset(key: string): Promise<void> {
    this.#failures.delete(key);
    this.#penalties.delete(key);
  }

  async penaltyUntil(key: string, now: number): Promise<number | undefined> {
    const penalty = this.#penalties.get(key, now);
    return penalty && penalty.until > now ? penalty.until : undefined;
  }
}

// KEYS: the failures (a sorted set of attempt times, a true sliding window) and the penalty (a hash
// of until and level). ARGV: now, a unique member for this attempt, the failure window, the failures
// before a penalty, the longest penalty (ms). Returns the penalty's end when refused, else 0.
const RESERVE_ATTEMPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[3])
local penalty = redis.call('HMGET', KEYS[2], 'until', 'level')
local untilMs = tonumber(penalty[1])
if untilMs and untilMs > now then return untilMs end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('PEXPIRE', KEYS[1], window)
local failures = redis.call('ZCARD', KEYS[1])
local level = tonumber(penalty[2])
if level == nil and failures < tonumber(ARGV[4]) then return 0 end
level = level == nil and 0 or level + 1
local ms = math.min(2 ^ level * 1000, tonumber(ARGV[5]))
redis.call('HSET', KEYS[2], 'until', string.format('%d', now + ms), 'level', level)
redis.call('PEXPIRE', KEYS[2], string.format('%d', ms + window))
return 0
`;

/** Shared by every instance; each operation is one atomic Redis command or script. */
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

  async reserveAttempt(key: string, now: number, failuresBeforePenalty = FAILURES_BEFORE_PENALTY): Promise<number | undefined> {
    const member = `${now}:${randomBytes(6).toString('hex')}`;
    const keys = [`${this.#prefix}attempts:${key}`, `${this.#prefix}penalty:${key}`];
    const until = await this.#redis.eval(RESERVE_ATTEMPT, keys.length, ...keys, now, member, FAILURE_WINDOW_MS, failuresBeforePenalty, MAX_PENALTY_SECONDS * 1000);
    return Number(until) > 0 ? Number(until) : undefined;
  }

  async reset(key: string): Promise<void> {
    await this.#redis.del(`${this.#prefix}attempts:${key}`, `${this.#prefix}penalty:${key}`);
  }

  async penaltyUntil(key: string, now: number): Promise<number | undefined> {
    const until = Number(await this.#redis.hget(`${this.#prefix}penalty:${key}`, 'until'));
    return until > now ? until : undefined;
  }
}

/** The endpoints whose requests are counted, each with its own budget. */
export type LimitedEndpoint = 'token' | 'idToken' | 'login' | 'revoke';

/** `retryAfter` in whole seconds, or undefined when the request may proceed. */
export type Verdict = { retryAfter: number } | undefined;

/** How a check of a client secret ended: refused by a penalty in force, or the client it authenticated (undefined: it failed). */
export type SecretCheck = { blocked: { retryAfter: number } } | { client: OAuthClient | undefined };

function retryAfter(until: number, now: number): { retryAfter: number } {
  return { retryAfter: Math.max(1, Math.ceil((until - now) / 1000)) };
}

export class Throttle {
  readonly #store: ThrottleStore;
  readonly #perMinute: number;
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  /** Client secrets (by digest) that passed their check on this instance lately; see `knownSecret`. */
  readonly #verified = new ExpiringCache<object>(MEMORY_STORE_MAX_ENTRIES);
  /** Reserved checks of client secrets in flight on this instance; see `shareCheck`. */
  readonly #checks = new SingleFlight<SecretCheck>();

  constructor(store: ThrottleStore, options: { perMinute: number; clock: Clock; onError: (error: unknown) => void }) {
    this.#store = store;
    this.#perMinute = options.perMinute;
    this.#clock = options.clock;
    this.#onError = options.onError;
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

  /**
   * Counts a request at `endpoint` against RATE_LIMIT_TOKEN_PER_MINUTE: per client, or per client and
   * address when `address` is given (the login page, whose client id anyone can read).
   */
  async limit(endpoint: LimitedEndpoint, clientId: string, address?: string): Promise<Verdict> {
    const now = this.#clock.now();
    const window = Math.floor(now / RATE_WINDOW_MS);
    const subject = address === undefined ? clientId : attemptKey(clientId, address);
    const count = await this.#guard(() => this.#store.countRequest(`${endpoint}:${subject}:${window}`, RATE_WINDOW_MS, now), 0);
    if (count <= this.#perMinute) return undefined;
    return retryAfter((window + 1) * RATE_WINDOW_MS, now);
  }

  /**
   * Reserves an attempt of `clientId` from `address` before its secret is checked: refused while a
   * penalty is in force, otherwise counted as a failure until `succeeded` clears it. A penalty starts
   * at the `failuresBeforePenalty`th failure in the window (5 unless said).
   */
  async attempt(clientId: string, address: string, failuresBeforePenalty?: number): Promise<Verdict> {
    const now = this.#clock.now();
    const until = await this.#guard(() => this.#store.reserveAttempt(attemptKey(clientId, address), now, failuresBeforePenalty), undefined);
    return until === undefined ? undefined : retryAfter(until, now);
  }

  /** The reserved attempt succeeded: its failures and penalty are forgotten. */
  async succeeded(clientId: string, address: string): Promise<void> {
    await this.#guard(() => this.#store.reset(attemptKey(clientId, address)), undefined);
  }

  /** The penalty in force for `clientId` from `address`, if any, without counting an attempt. */
  async penalised(clientId: string, address: string): Promise<Verdict> {
    const now = this.#clock.now();
    const until = await this.#guard(() => this.#store.penaltyUntil(attemptKey(clientId, address), now), undefined);
    return until === undefined ? undefined : retryAfter(until, now);
  }

  /**
   * Whether this client's secret (by its SHA-256 `digest`) passed its check on this instance within the last minute. Such an
   * attempt is no guess: it is checked against the penalty only, not reserved and cleared (so a
   * client's own parallel requests never add up to a penalty, and cost no store writes), and counts
   * as a failure only should the check then fail (a secret rotated or the client disabled since).
   */
  knownSecret(clientId: string, digest: string): boolean {
    return this.#verified.get(secretKey(clientId, digest), this.#clock.now()) !== undefined;
  }

  /**
   * The reserved check of this client's secret (by `digest`) from `address` in flight on this
   * instance, joined; or `check` started as it. So a fresh client's concurrent first requests reserve
   * one attempt, not one each (past five, they were refused 429 though nothing failed); who joins a
   * failed check counts its own failure (client-auth.ts), so repeating a guess costs as before.
   * `source` tells checks on kept copies of the clients from checks on a fresh read apart.
   */
  shareCheck(source: 'kept' | 'fresh', clientId: string, address: string, digest: string, check: () => Promise<SecretCheck>): { joined: boolean; outcome: Promise<SecretCheck> } {
    return this.#checks.run(`${source}|${secretKey(clientId, digest)}|${countedAddress(address)}`, check);
  }

  /** Remembers (or, after a failed check, forgets) that the secret with this digest is this client's. */
  secretChecked(clientId: string, digest: string, passed: boolean): void {
    if (passed) this.#verified.set(secretKey(clientId, digest), {}, this.#clock.now() + KNOWN_SECRET_MS);
    else this.#verified.delete(secretKey(clientId, digest));
  }
}

const KNOWN_SECRET_MS = 60_000;

/** Keyed by the secret's SHA-256 (`digest`, hashed once by the caller), never the secret itself. */
function secretKey(clientId: string, digest: string): string {
  return `${clientId}|${digest}`;
}

/** Dotted decimal, each octet 0–255 without leading zeros: what ipaddr.js prints an IPv4 address as. */
const CANONICAL_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * The address a limit counts: an IPv6 client holds at least a /64 (RFC 6177) and could rotate
 * through it, so its addresses count as that /64; an IPv4-mapped IPv6 address as the IPv4 one.
 */
export function countedAddress(address: string): string {
  // The common case, an IPv4 address in its canonical form, is its own counted address: ipaddr.js
  // would parse and print it back the same (a fifth of client authentication's CPU per token).
  if (CANONICAL_IPV4.test(address)) return address;
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

function attemptKey(clientId: string, address: string): string {
  return `${clientId}|${countedAddress(address)}`;
}
