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
