import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseCache } from '../../src/platform/response-cache.ts';

test('the response cache keeps within its byte budget, dropping the least recently used first', () => {
  const cache = new ResponseCache(100);
  cache.set('a', { body: 'x'.repeat(20), etag: '"a"' });
  cache.set('b', { body: 'x'.repeat(20), etag: '"b"' });
  cache.set('c', { body: 'x'.repeat(20), etag: '"c"' });
  assert.equal(cache.get('a')?.etag, '"a"', 'a is now the most recently used');
  cache.set('d', { body: 'x'.repeat(20), etag: '"d"' });
  cache.set('e', { body: 'x'.repeat(20), etag: '"e"' });
  cache.set('f', { body: 'x'.repeat(20), etag: '"f"' });
  assert.equal(cache.get('b'), undefined, 'b, the least recently used, left first');
  assert.equal(cache.get('a')?.etag, '"a"');
  assert.equal(cache.get('f')?.etag, '"f"');
});

test('a body larger than a quarter of the budget is not cached', () => {
  const cache = new ResponseCache(100);
  cache.set('big', { body: 'x'.repeat(30), etag: '"big"' });
  assert.equal(cache.get('big'), undefined);
});
