// bench/read-cpu.ts: the builds it is given answer the read rows under wrk, and each round yields a
// CPU per answer and a rate (tiny company, one 1-second round: the figures only have to exist).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { testDialect } from '../support/database.ts';
import { measureReadCpu, type ReadCpuOptions } from '../../bench/read-cpu.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const options: ReadCpuOptions = {
  builds: [ROOT],
  dialect: testDialect,
  rows: ['config', 'feed-br'],
  rounds: 1,
  seconds: 1,
  oneAtATime: false,
  postgresUrl: process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  employees: 20,
  shiftsPerDay: 20,
};

test('each row of each build gets a CPU per answer and a rate per round', async () => {
  const results = await measureReadCpu(options);
  assert.deepEqual(results.map((result) => result.row), ['config', 'feed-br']);
  for (const result of results) {
    assert.equal(result.microsPerAnswer.length, 1);
    assert.ok(result.microsPerAnswer[0]! > 0 && Number.isFinite(result.microsPerAnswer[0]), `${result.row}: ${result.microsPerAnswer[0]} µs`);
    assert.ok(result.perSecond[0]! > 0, `${result.row}: ${result.perSecond[0]}/s`);
  }
});

test('an unknown row is refused before anything starts', async () => {
  await assert.rejects(measureReadCpu({ ...options, rows: ['config', 'nope'] }), /unknown rows: nope/);
});
