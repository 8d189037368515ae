// The clock seam: a ManualClock's "now" stands still until moved, and a move runs the repeating tasks
// it made due, so a test moves time instead of waiting for a poll.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock.ts';

const HOUR = 3_600_000;

test('a move runs a repeating task once it completes the task\'s interval, and settled() waits for its work', async () => {
  const clock = new ManualClock(0);
  const runs: number[] = [];
  const stop = clock.every(HOUR, async () => {
    await Promise.resolve();
    runs.push(clock.now());
  });
  clock.advance(HOUR / 2);
  await clock.settled();
  assert.deepEqual(runs, [], 'half an interval: not due');
  clock.advance(HOUR / 2);
  await clock.settled();
  assert.deepEqual(runs, [HOUR], 'due once the interval is complete, and finished when settled() resolves');
  clock.advance(5 * HOUR);
  await clock.settled();
  assert.deepEqual(runs, [HOUR, 6 * HOUR], 'a long move runs it once: a poll needs no catching up');
  stop();
  clock.advance(HOUR);
  await clock.settled();
  assert.equal(runs.length, 2, 'stopped: no more runs');
});

test('ages move with the clock, never back', () => {
  const clock = new ManualClock(10 * HOUR);
  const before = clock.elapsed();
  clock.advance(HOUR);
  assert.ok(clock.elapsed() - before >= HOUR);
  clock.set(0);
  assert.equal(clock.now(), 0, 'now goes back when set back');
  assert.ok(clock.elapsed() - before >= HOUR, 'elapsed time does not');
});
