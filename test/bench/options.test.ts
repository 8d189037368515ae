// Benchmark options: argv first, then BENCH_<NAME> from the environment, then the default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readOptions } from '../../bench/options.ts';

test('service NODE_OPTIONS come from --server-node-options or BENCH_SERVER_NODE_OPTIONS, none by default', () => {
  assert.equal(readOptions([], {}).serverNodeOptions, '');
  assert.equal(readOptions(['--server-node-options=--cpu-prof'], {}).serverNodeOptions, '--cpu-prof');
  assert.equal(readOptions([], { BENCH_SERVER_NODE_OPTIONS: '--cpu-prof --cpu-prof-dir=/tmp/p' }).serverNodeOptions, '--cpu-prof --cpu-prof-dir=/tmp/p');
  assert.equal(readOptions(['--server-node-options=--heap-prof'], { BENCH_SERVER_NODE_OPTIONS: '--cpu-prof' }).serverNodeOptions, '--heap-prof');
});

test('a bad number or database stops the run with the option named', () => {
  assert.throws(() => readOptions(['--duration', '0'], {}), /--duration must be a positive number/);
  assert.throws(() => readOptions(['--db', 'mysql'], {}), /--db takes sqlite and\/or postgres/);
});

test('--short (or BENCH_SHORT=1) shortens every phase, skips the two-instance column and writes nothing; a number given still wins', () => {
  const full = readOptions([], {});
  assert.deepEqual([full.duration, full.warmup, full.days, full.batchRuns, full.webhookChanges, full.twoInstances, full.write], [5, 1, 46, 10, 5000, true, true]);
  const short = readOptions(['--short'], {});
  assert.deepEqual([short.duration, short.warmup, short.days, short.batchRuns, short.webhookChanges, short.twoInstances, short.write], [1, 0, 9, 3, 1000, false, false]);
  assert.equal(readOptions(['--short', '--duration', '3'], {}).duration, 3);
  assert.equal(readOptions([], { BENCH_SHORT: '1' }).days, 9);
});
