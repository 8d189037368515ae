// bench/token-cpu.ts: each build it is given, on a database of its own, answers client_credentials
// tokens under wrk, and each round yields the CPU per token of the service and of its main thread
// (and of PostgreSQL on PostgreSQL), the threads' voluntary context switches per token, and a rate
// (one 1-second round: the figures only have to exist).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { testDialect } from '../support/database.ts';
import { measureTokenCpu } from '../../bench/token-cpu.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('each build gets a CPU per token, its main thread part and a rate per round', async () => {
  const results = await measureTokenCpu({
    builds: [ROOT, ROOT],
    dialect: testDialect,
    rounds: 1,
    seconds: 1,
    postgresUrl: process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  });
  assert.equal(results.length, 2);
  for (const result of results) {
    const [service, mainThread, postgres, perSecond] = [result.service[0]!, result.mainThread[0]!, result.postgres[0]!, result.perSecond[0]!];
    assert.ok(service > 0 && Number.isFinite(service), `service ${service} µs`);
    assert.ok(mainThread > 0 && mainThread <= service, `main thread ${mainThread} µs of ${service}`);
    assert.equal(Number.isFinite(postgres), testDialect === 'postgres', `PostgreSQL ${postgres} µs`);
    assert.ok(perSecond > 0, `${perSecond}/s`);
    assert.ok(result.switches[0]! >= 0 && Number.isFinite(result.switches[0]), `${result.switches[0]} switches per token`);
  }
});
