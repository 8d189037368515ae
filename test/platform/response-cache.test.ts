import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { cachedResponse, contentCoding, ResponseCache } from '../../src/platform/response-cache.ts';

test('the response cache keeps within its byte budget, dropping the least recently used first', () => {
  const cache = new ResponseCache(100);
  for (const key of ['a', 'b', 'c']) cache.set(key, cachedResponse('x'.repeat(20)));
  assert.ok(cache.get('a'), 'a is now the most recently used');
  for (const key of ['d', 'e', 'f']) cache.set(key, cachedResponse('x'.repeat(20)));
  assert.equal(cache.get('b'), undefined, 'b, the least recently used, left first');
  assert.ok(cache.get('a'));
  assert.ok(cache.get('f'));
});

test('an entry asked for again and again, or cached again under its key, stays the most recently used', () => {
  const cache = new ResponseCache(100);
  for (const key of ['a', 'b', 'c', 'd']) cache.set(key, cachedResponse('x'.repeat(20)));
  for (let i = 0; i < 3; i++) assert.ok(cache.get('a'), 'a, asked for repeatedly');
  cache.set('b', cachedResponse('y'.repeat(20)));
  assert.ok(cache.get('b'), 'b, cached again: now the most recently used');
  for (const key of ['e', 'f', 'g']) cache.set(key, cachedResponse('x'.repeat(20)));
  assert.equal(cache.get('c'), undefined, 'c left first');
  assert.equal(cache.get('d'), undefined, 'then d');
  assert.ok(cache.get('a'));
  assert.ok(cache.get('b'));
});

test('a body larger than a quarter of the budget is not cached', () => {
  const cache = new ResponseCache(100);
  cache.set('big', cachedResponse('x'.repeat(30)));
  assert.equal(cache.get('big'), undefined);
});

test('compressed representations are made once, decode to the body, and count against the budget', async () => {
  const text = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ id: `shf_${i}`, note: 'morning shift' })));
  const cache = new ResponseCache(text.length * 4 + 10);
  const entry = cachedResponse(text);
  cache.set('feed', entry);
  const br = await cache.encoded(entry, 'br');
  assert.equal(await cache.encoded(entry, 'br'), br, 'the same buffer the second time');
  assert.equal(brotliDecompressSync(br).toString(), text);
  assert.equal(gunzipSync(await cache.encoded(entry, 'gzip')).toString(), text);
  assert.ok(br.length < text.length / 5, `brotli shrinks repetitive JSON (${br.length} of ${text.length} bytes)`);
  assert.equal(entry.bytes, entry.body.length + br.length + (await cache.encoded(entry, 'gzip')).length);
  // The budget holds four bodies; the compressed ones took part of it, so the fourth evicts the first.
  for (const key of ['b', 'c', 'd']) cache.set(key, cachedResponse(text));
  assert.equal(cache.get('feed'), undefined);
});

test('content coding follows Accept-Encoding and its q-values, brotli first on a tie, never for small bodies', () => {
  assert.equal(contentCoding(undefined, 5000), undefined);
  assert.equal(contentCoding('gzip, deflate, br', 5000), 'br');
  assert.equal(contentCoding('gzip', 5000), 'gzip');
  assert.equal(contentCoding('br;q=0.5, gzip', 5000), 'gzip');
  assert.equal(contentCoding('identity', 5000), undefined);
  assert.equal(contentCoding('gzip, br', 500), undefined);
});

test('a key cached twice (two misses at once) counts only the entry it keeps', () => {
  const cache = new ResponseCache(100);
  for (let i = 0; i < 10; i++) cache.set('same', cachedResponse('x'.repeat(20)));
  for (const key of ['a', 'b', 'c']) cache.set(key, cachedResponse('x'.repeat(20)));
  assert.ok(cache.get('same'), 'five bodies of 20 bytes fit in 100: nothing was evicted');
  assert.ok(cache.get('a'));
});
