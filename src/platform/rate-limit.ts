// A per-key request limit over fixed windows (contract: errors and limits), for an encapsulated route
// scope: every answer carries X-RateLimit-Limit, -Remaining and -Reset; over the limit, 429 with
// Retry-After. Counted in memory for a single instance, in Redis when REDIS_URL is set, so every
// instance shares one count.
//
// It replaces @fastify/rate-limit with the same rule, headers and Redis keys (an instance of either
// counts into the same window): that plugin's hook is async, and awaits its key and its store, a
// handful of promises and microtasks on every request even when the count is in memory. Here the
// in-memory count answers synchronously (callback-style hook), and only Redis costs a promise.
import type { Redis } from 'ioredis';
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify';

type PreParsingDone = (error?: Error | null, payload?: RequestPayload) => void;

/** The window a request was counted in: its count so far (this one included) and the ms it has left. */
export interface RateWindow {
  count: number;
  ttlMs: number;
}

export interface RateCounter {
  /** Counts one request for `key` in its window of `windowMs`, starting one when none is open. */
  count(key: string, windowMs: number): RateWindow | Promise<RateWindow>;
}

/** Keys kept in memory at most; the oldest window leaves first (as @fastify/rate-limit's 5,000). */
const MEMORY_KEYS = 5000;

export class MemoryRateCounter implements RateCounter {
  readonly #windows = new Map<string, { count: number; startedAt: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  count(key: string, windowMs: number): RateWindow {
    const now = this.#now();
    const window = this.#window(key, windowMs, now);
    window.count += 1;
    return { count: window.count, ttlMs: window.startedAt + windowMs - now };
  }

  /** As count, when the count stays within `max`; over it, undefined and nothing counted. */
  countWithin(key: string, windowMs: number, max: number): RateWindow | undefined {
    const now = this.#now();
    const open = this.#windows.get(key);
    // An open window at its limit: the request would be over it (a new window starts at 1).
    if (open && open.startedAt + windowMs > now && open.count >= max) return undefined;
    return this.count(key, windowMs);
  }

  #window(key: string, windowMs: number, now: number): { count: number; startedAt: number } {
    let window = this.#windows.get(key);
    if (!window || window.startedAt + windowMs <= now) {
      window = { count: 0, startedAt: now };
      this.#windows.delete(key);
      this.#windows.set(key, window);
      if (this.#windows.size > MEMORY_KEYS) this.#windows.delete(this.#windows.keys().next().value as string);
    }
    return window;
  }
}

// The first request of a window sets its expiry; later ones read what is left of it.
const COUNT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ttl) else ttl = redis.call('PTTL', KEYS[1]) end
return {count, ttl}`;

export class RedisRateCounter implements RateCounter {
  readonly #redis: Redis;
  readonly #prefix: string;

  /** `prefix`: the namespace of the keys (the same as @fastify/rate-limit's `nameSpace`). */
  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  async count(key: string, windowMs: number): Promise<RateWindow> {
    const [count, ttlMs] = (await this.#redis.eval(COUNT_SCRIPT, 1, this.#prefix + key, windowMs)) as [number, number];
    return { count, ttlMs };
  }
}

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  counter: RateCounter;
  key: (request: FastifyRequest) => string;
  /** A counter that fails (Redis down) lets the request through: the limit fails open. */
  onError: (error: unknown) => void;
}

/** Too many requests: the error handler answers it as `429 rate_limited`. */
function overTheLimit(): Error {
  return Object.assign(new Error('Rate limit exceeded'), { statusCode: 429 });
}

/** What a counter that failed leaves: no count, so the request passes (the limit fails open). */
const OPEN: RateWindow = { count: 0, ttlMs: 0 };

/** The X-RateLimit-* headers of a counted request, as name, value pairs in the order they are sent. */
function rateHeaders(max: number, limit: string, window: RateWindow): string[] {
  return ['x-ratelimit-limit', limit, 'x-ratelimit-remaining', String(Math.max(0, max - window.count)), 'x-ratelimit-reset', resetSeconds(window)];
}

/** Whole seconds until the window ends: X-RateLimit-Reset, and Retry-After over the limit. */
function resetSeconds(window: RateWindow): string {
  return String(Math.ceil(window.ttlMs / 1000));
}

/**
 * Counts a request outside the hook (the cached-answer lane): its X-RateLimit-* headers when it was
 * counted within the limit, synchronously; undefined, with nothing counted, when it would be over
 * the limit or the count is not in memory (Redis) — the request then goes the hook's way.
 */
export type CountWithin = (key: string) => string[] | undefined;

/**
 * Limits every route of `app` (an encapsulated scope), counted before the body is read: a client over
 * its limit costs no parsing, and every answer — a 400 for a bad body or query included — carries
 * the headers. An in-memory count is answered without a closure or a promise.
 */
export function limitRequests(app: FastifyInstance, options: RateLimitOptions): CountWithin {
  const { max, windowMs, counter, key, onError } = options;
  const limit = String(max);
  const answer = (reply: FastifyReply, window: RateWindow, payload: RequestPayload, done: PreParsingDone): void => {
    const headers = rateHeaders(max, limit, window);
    for (let i = 0; i < headers.length; i += 2) reply.header(headers[i]!, headers[i + 1]);
    if (window.count <= max) {
      done(null, payload);
      return;
    }
    reply.header('retry-after', resetSeconds(window));
    done(overTheLimit());
  };
  app.addHook('preParsing', (request, reply, payload, done) => {
    let counted: RateWindow | Promise<RateWindow>;
    try {
      counted = counter.count(key(request), windowMs);
    } catch (error) {
      onError(error);
      counted = OPEN;
    }
    if (!(counted instanceof Promise)) {
      answer(reply, counted, payload, done);
      return;
    }
    counted.then(
      (window) => answer(reply, window, payload, done),
      (error: unknown) => {
        onError(error);
        answer(reply, OPEN, payload, done);
      },
    );
  });
  if (!(counter instanceof MemoryRateCounter)) return () => undefined;
  return (countKey) => {
    const window = counter.countWithin(countKey, windowMs, max);
    return window && rateHeaders(max, limit, window);
  };
}
