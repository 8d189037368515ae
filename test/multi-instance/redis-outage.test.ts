// Losing Redis (issue 5): Redis only holds rate-limit counters and penalties, so an instance that
// cannot reach it reports itself unready but keeps answering, its limits failing open, and uses
// Redis again once it returns. The identity endpoints' throttle already fails open; the secured API's
// rate limit must do the same rather than answer 500.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/platform/config.ts';
import { closeContext, createContext } from '../../src/platform/bootstrap.ts';
import type { AppContext } from '../../src/platform/context.ts';
import { freshDatabase, testDialect, type FreshDatabase } from '../support/database.ts';
import { freePorts, startInstance, type Instance } from '../support/processes.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { mintTokens, provisionTenant } from '../support/tenants.ts';
import { api, eventually, renew } from './client.ts';

const needsPostgres = testDialect === 'postgres' ? false : 'needs PostgreSQL (run with WFS_TEST_DATABASE=postgres)';

describe('an instance that loses Redis', { skip: needsPostgres, concurrency: 1 }, () => {
  let database: FreshDatabase;
  let ctx: AppContext;
  let proxy: TcpProxy;
  let instance: Instance;
  let idToken: string;
  let refreshToken: string;

  before(async () => {
    database = await freshDatabase();
    const [port = 0] = await freePorts(1);
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 });
    const env = { DATABASE_URL: database.url, BASE_URL: `http://127.0.0.1:${port}`, REDIS_URL: `redis://127.0.0.1:${proxy.port}` };
    ctx = await createContext(loadConfig({ ...env, REDIS_URL: '' }), { poll: false });
    const tokens = await mintTokens(ctx, await provisionTenant(ctx));
    idToken = tokens.id_token;
    refreshToken = tokens.refresh_token ?? '';
    instance = await startInstance({ port, env });
  });

  after(async () => {
    await instance?.stop();
    await proxy?.close();
    if (ctx) await closeContext(ctx);
    await database?.drop();
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
