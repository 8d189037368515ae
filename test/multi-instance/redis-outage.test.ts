// Losing Redis (issue 5): Redis only holds rate-limit counters and penalties, so an instance that
// cannot reach it reports itself unready but keeps answering, its limits failing open, and uses
// Redis again once it returns. The identity endpoints' throttle already fails open; the secured API's
// rate limit must do the same rather than answer 500.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signedInCompany } from '../support/company.ts';
import { startInstance, type Instance } from '../support/processes.ts';
import { needsPostgres, openSharedDatabase, type SharedDatabase } from '../support/shared-database.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { api, eventually, renew } from './client.ts';

describe('an instance that loses Redis', { skip: needsPostgres, concurrency: 1 }, () => {
  let shared: SharedDatabase;
  let proxy: TcpProxy;
  let instance: Instance;
  let idToken: string;
  let refreshToken: string;

  before(async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 });
    // Only the instance goes through the proxy; the test's own handle needs no Redis.
    shared = await openSharedDatabase({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, handleEnv: { REDIS_URL: '' } });
    ({ token: idToken, refreshToken } = await signedInCompany(shared.ctx));
    instance = await startInstance({ port: shared.ports[0], env: shared.env });
  });

  after(async () => {
    await instance?.stop();
    await proxy?.close();
    await shared?.close();
  });

  it('reports itself unready and names Redis, and recovers when Redis returns', async () => {
    proxy.cut();
    try {
      const ready = await fetch(`${instance.url}/readyz`);
      assert.equal(ready.status, 503);
      assert.deepEqual(await ready.json(), { status: 'unavailable', checks: { database: 'ok', redis: 'down' } });
      assert.equal((await renew(instance.url, refreshToken)).status, 200, 'the identity throttle fails open');
    } finally {
      proxy.restore();
    }
    await eventually('ready again once Redis returns', 10_000, async () => (await fetch(`${instance.url}/readyz`)).status === 200);
    assert.ok(instance.alive());
  });

  it('keeps serving the company API with its rate limit failing open', async () => {
    proxy.cut();
    try {
      const response = await api(instance.url, idToken, '/api/v1/company/configuration');
      assert.equal(response.status, 200, await response.text());
    } finally {
      proxy.restore();
    }
  });
});
