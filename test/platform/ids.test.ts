// Identifiers: a prefix and 96 random bits, never repeated, also across refills of the random pool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../../src/platform/ids.ts';

test('identifiers are the prefix and 16 base64url characters (96 bits)', () => {
  assert.match(newId('emp'), /^emp_[A-Za-z0-9_-]{16}$/);
});

test('identifiers do not repeat across many refills of the random pool', () => {
  // The pool holds 341 identifiers' worth of bytes; 20,000 identifiers refill it about 60 times.
  const ids = Array.from({ length: 20_000 }, () => newId('x'));
  assert.equal(new Set(ids).size, ids.length);
  const randomParts = new Set(ids.map((id) => id.slice(2, 6)));
  assert.ok(randomParts.size > 10_000, 'the leading characters vary like random ones');
});
