// Identifiers: a prefix, the creation time in 7 characters that sort like the time, and 96 bits,
// random for a millisecond's first id and stepping up by random amounts after it; never repeated,
// also across refills of the random pool, and increasing in the order this process made them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../../src/platform/ids.ts';

test('identifiers are the prefix, 7 time characters and 16 random ones, all base64url', () => {
  assert.match(newId('emp'), /^emp_[A-Za-z0-9_-]{23}$/);
});

test('identifiers made later sort after earlier ones, whatever their random part', () => {
  const times = [0, 1, 63, 64, 4095, 1_700_000_000_000, 1_700_000_000_001, Date.now(), Date.UTC(2109, 0, 1)];
  const ids = times.map((time) => newId('x', time));
  assert.deepEqual([...ids].sort(), ids);
  // Plain code-unit order, as SQLite's BINARY collation and a C-collated index compare them.
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
});

test('identifiers made in the same millisecond share the time part and differ in the random part', () => {
  const now = Date.now();
  const ids = Array.from({ length: 20_000 }, () => newId('x', now));
  assert.equal(new Set(ids.map((id) => id.slice(0, 9))).size, 1);
  // The pool holds 341 identifiers' worth of bytes; 20,000 identifiers refill it about 60 times.
  assert.equal(new Set(ids).size, ids.length);
  // The high characters count up within the millisecond; the low ones take the random steps.
  assert.ok(new Set(ids.map((id) => id.slice(-3))).size > 10_000, 'the random part varies like random bits');
});

test('identifiers made in one millisecond sort in the order they were made', () => {
  const now = Date.now();
  const ids = Array.from({ length: 20_000 }, () => newId('x', now));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
});

test('an identifier given an earlier time than the last one still sorts after it', () => {
  // Two requests: the first read the clock before the second, but makes its id after.
  const later = newId('x', Date.now() + 5);
  const earlier = newId('x', Date.now());
  assert.ok(later < earlier, `${later} < ${earlier}`);
  assert.equal(earlier.length, later.length);
});

test('the step from one identifier to the next is random, so the next one is not guessable', () => {
  const now = Date.now();
  const [a, b, c] = [newId('x', now), newId('x', now), newId('x', now)];
  const value = (id: string) => [...id.slice(9)].reduce((n, ch) => n * 64n + BigInt('-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'.indexOf(ch)), 0n);
  const steps = [value(b) - value(a), value(c) - value(b)];
  assert.ok(steps.every((step) => step > 0n && step <= 2n ** 64n), String(steps));
  assert.notEqual(steps[0], steps[1]);
});
