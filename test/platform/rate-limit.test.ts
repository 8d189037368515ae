// The secured API's per-client counter (src/platform/rate-limit.ts): fixed windows that start with
// their first request, in memory and in the real Redis, where two instances count into one window.
// The HTTP side — headers on every answer, 429 with Retry-After — is rate-limit-headers.test.ts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryRateCounter, RedisRateCounter } from '../../src/platform/rate-limit.ts';
import { eventually } from '../multi-instance/client.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

test('in memory: a window counts from its first request, says how long it has left, and starts over when it ends', () => {
  let now = 1_000_000;
  const counter = new MemoryRateCounter(() => now);
  assert.deepEqual(counter.count('a', 60_000), { count: 1, ttlMs: 60_000 });
  now += 15_000;
  assert.deepEqual(counter.count('a', 60_000), { count: 2, ttlMs: 45_000 });
  assert.deepEqual(counter.count('b', 60_000), { count: 1, ttlMs: 60_000 }, 'one key never counts into another');
  now += 45_000;
  assert.deepEqual(counter.count('a', 60_000), { count: 1, ttlMs: 60_000 });
});

test('in memory: a flood of keys keeps the newest 5,000, so the memory stays bounded', () => {
  const counter = new MemoryRateCounter(() => 0);
  counter.count('first', 60_000);
  for (let i = 0; i < 5000; i += 1) counter.count(`key-${i}`, 60_000);
  assert.equal(counter.count('first', 60_000).count, 1, 'the oldest window was let go');
  assert.equal(counter.count('key-4999', 60_000).count, 2);
});

test('in Redis: two instances count into one window, whose expiry the first request sets', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const prefix = `wfs-test-rl-${randomBytes(4).toString('hex')}:`;
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const one = new RedisRateCounter(redis, prefix);
  const other = new RedisRateCounter(redis, prefix);
  // A second's window: the second count must land in the first one's window, and a loaded machine can
  // hold this process for a good part of 300 ms between two round trips.
  const first = await one.count('api:client', 1000);
  assert.deepEqual(first, { count: 1, ttlMs: 1000 });
  const second = await other.count('api:client', 1000);
  assert.equal(second.count, 2);
  assert.ok(second.ttlMs > 0 && second.ttlMs <= 1000, `${second.ttlMs} ms left`);
  assert.equal((await one.count('api:another', 1000)).count, 1);
  // The window ends when Redis lets its key go: waited for rather than slept past.
  await eventually('the first window expired', 5000, async () => (await redis.exists(`${prefix}api:client`)) === 0, 50);
  assert.deepEqual(await other.count('api:client', 1000), { count: 1, ttlMs: 1000 }, 'a new window after the first one expired');
});
