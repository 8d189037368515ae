// SingleFlight: concurrent callers of one key share one run of the work, whether it resolves or
// rejects; other keys run on their own; once settled, the next caller runs the work afresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SingleFlight } from '../../src/platform/single-flight.ts';

test('concurrent callers of one key share one run; another key runs on its own; a settled run is not reused', async () => {
  const flights = new SingleFlight<number>();
  let runs = 0;
  const work = async () => {
    runs++;
    await new Promise((resolve) => setImmediate(resolve));
    return runs;
  };
  const first = flights.run('a', work);
  const joined = flights.run('a', work);
  const other = flights.run('b', work);
  assert.deepEqual([first.joined, joined.joined, other.joined], [false, true, false]);
  assert.deepEqual(await Promise.all([first.outcome, joined.outcome]), [2, 2]);
  await other.outcome;
  assert.equal(runs, 2);
  const later = flights.run('a', work);
  assert.equal(later.joined, false);
  assert.equal(await later.outcome, 3);
});

test('a rejected run is shared by those who joined it, then forgotten', async () => {
  const flights = new SingleFlight<string>();
  const failing = flights.run('k', () => Promise.reject(new Error('down')));
  const joined = flights.run('k', () => Promise.resolve('unused'));
  assert.equal(joined.joined, true);
  await assert.rejects(failing.outcome, /down/);
  await assert.rejects(joined.outcome, /down/);
  const next = flights.run('k', () => Promise.resolve('up'));
  assert.equal(next.joined, false);
  assert.equal(await next.outcome, 'up');
});
