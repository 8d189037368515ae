// bench/revenue-cpu.ts measures what it claims: each variant stores the whole batch as expected
// (new keys all created, changed keys all updated, else it throws) and counts the CPU of the
// service, and on PostgreSQL of that database's backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialect } from '../support/database.ts';
import { measureBatchCpu } from '../../bench/revenue-cpu.ts';

const POSTGRES_URL = process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

test('one batch of each variant is stored and its CPU counted', async () => {
  const results = await measureBatchCpu(testDialect, POSTGRES_URL, 1);
  assert.deepEqual(results.map((r) => [r.variant, r.batches]), [['new', 1], ['changed', 1]]);
  for (const result of results) {
    assert.ok(result.serviceCpuMs > 0, `service CPU of ${result.variant}`);
    assert.ok(result.wallMs >= result.serviceCpuMs / 2, 'CPU within what the wall time allows on 2 cores');
    if (testDialect === 'postgres') assert.ok(result.backendsCpuMs > 0, `backends' CPU of ${result.variant}`);
    else assert.equal(result.backendsCpuMs, 0);
  }
});
