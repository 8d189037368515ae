import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWrk } from '../../bench/load.ts';

const OUTPUT = `Running 5s test @ http://127.0.0.1:4000/api/v1/feeds/timetable
  1 threads and 8 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.02ms  412.00us  12.31ms   90.00%
  Latency Distribution
     50%  950.00us
     75%    1.10ms
     90%    1.40ms
     99%    4.20ms
  33449 requests in 5.00s, 1.77GB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 7
Requests/sec:   6689.80
Transfer/sec:    362.50MB
`;

test('wrk output is read into requests, seconds, failures and latency percentiles in milliseconds', () => {
  const result = parseWrk(OUTPUT);
  assert.deepEqual({ ...result, p50Ms: Math.round(result.p50Ms * 1000) }, { requests: 33449, seconds: 5, failures: 10, p50Ms: 950, p99Ms: 4.2 });
});

test('output that is not a wrk summary is an error, not a zero', () => {
  assert.throws(() => parseWrk('wrk: command failed'), /unexpected wrk output/);
});
