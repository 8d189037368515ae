import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cpuShare, parseCpuTicks, parseLoopP99Ms, parseRssKiB, servesDatabase } from '../../bench/resources.ts';

// A real line's shape (proc(5)): pid (comm) state ppid … utime=14 stime=15 …; the name may hold ") ".
const STAT = '4242 (node ) weird) R 1 4242 4242 0 -1 4194304 1234 0 0 0 731 269 0 0 20 0 11 0 5000 1200000000 65000 18446744073709551615';

test('CPU ticks are utime + stime, counted after the last ")" of the process name', () => {
  assert.equal(parseCpuTicks(STAT), 731 + 269);
});

test('this very process has a readable CPU tick count that grows with work', () => {
  const before = parseCpuTicks(readFileSync('/proc/self/stat', 'utf8'));
  // 50 ms of CPU as Node counts it (not of wall time: the machine may be busy).
  const start = process.cpuUsage();
  while (process.cpuUsage(start).user < 50_000) Math.sqrt(Math.random());
  assert.ok(parseCpuTicks(readFileSync('/proc/self/stat', 'utf8')) > before);
});

test('a stat line without the time fields is an error, not a zero', () => {
  assert.throws(() => parseCpuTicks('1 (x) R 1'), /unexpected \/proc stat line/);
});

test('resident memory is VmRSS in KiB, absent when the status has none (a kernel thread)', () => {
  assert.equal(parseRssKiB('Name:\tnode\nVmPeak:\t  999 kB\nVmRSS:\t  268032 kB\nRssAnon:\t 1 kB\n'), 268_032);
  assert.equal(parseRssKiB('Name:\tkthreadd\nState:\tS (sleeping)\n'), undefined);
  assert.ok((parseRssKiB(readFileSync('/proc/self/status', 'utf8')) ?? 0) > 1000);
});

test('the CPU share is the ticks spent per second of wall time, processes born in the phase counting whole', () => {
  const before = new Map([[1, 100], [2, 50]]);
  const after = new Map([[1, 180], [3, 40]]); // 2 has exited: its ticks left with it
  assert.equal(cpuShare(before, after, 2, 100), (80 + 40) / 100 / 2);
});

test('the event-loop p99 comes from prom-client\'s gauge, in milliseconds', () => {
  const text = '# HELP nodejs_eventloop_lag_p99_seconds The 99th percentile of the recorded event loop delays.\n# TYPE nodejs_eventloop_lag_p99_seconds gauge\nnodejs_eventloop_lag_p99_seconds 0.046268415\nnodejs_eventloop_lag_p90_seconds 0.02\n';
  assert.equal(parseLoopP99Ms(text), 46.268415);
  assert.equal(parseLoopP99Ms('nodejs_eventloop_lag_p90_seconds 0.02\n'), undefined);
});

test("PostgreSQL's CPU counts this database's sessions and the cluster's shared processes, not other databases' sessions", () => {
  assert.equal(servesDatabase('postgres: 15/main: postgres wfs_bench_1a2b 127.0.0.1(58576) INSERT', 'wfs_bench_1a2b'), true);
  assert.equal(servesDatabase('postgres: 15/main: postgres wfs_test_9z 127.0.0.1(41000) idle', 'wfs_bench_1a2b'), false);
  assert.equal(servesDatabase('postgres: postgres wfs_test_9z [local] idle', 'wfs_bench_1a2b'), false);
  assert.equal(servesDatabase('postgres: 15/main: autovacuum worker wfs_test_9z', 'wfs_bench_1a2b'), false);
  assert.equal(servesDatabase('postgres: 15/main: autovacuum worker wfs_bench_1a2b', 'wfs_bench_1a2b'), true);
  for (const shared of ['postgres: 15/main: walwriter', 'postgres: 15/main: checkpointer', 'postgres: 15/main: background writer', 'postgres: 15/main: autovacuum launcher']) {
    assert.equal(servesDatabase(shared, 'wfs_bench_1a2b'), true, shared);
  }
});
