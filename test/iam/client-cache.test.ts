// client_credentials is checked against kept copies of the clients (src/iam/client-cache.ts), and its
// grant is stored only if the client's row is unchanged (src/iam/issue-records.ts): a change made in
// the database after the client's last token — by the CLI, another instance, a plain UPDATE — acts at
// once all the same, and the tokens of concurrent requests each have their own stored grant.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { generateClientSecret } from '../../src/iam/secrets.ts';
import { postToken } from './helpers.ts';
import type { TokenBody } from '../support/login.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

async function machine(): Promise<Tenant> {
  const tenant = await provisionTenant(server.ctx);
  await setGrantEnabled(server.ctx.db, tenant.clientId, 'client_credentials', true);
  return tenant;
}

function credentials(tenant: Tenant, secret = tenant.clientSecret): Record<string, string> {
  return { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: secret };
}

async function grantsOf(tenant: Tenant): Promise<number> {
  const rows = await server.ctx.db.selectFrom('grants').select('id').where('client_id', '=', tenant.clientId).execute();
  return rows.length;
}

async function refused(response: Response, status: number, error: string): Promise<void> {
  assert.equal(response.status, status);
  assert.equal(((await response.json()) as { error: string }).error, error);
}

test('a client disabled in the database after its last token gets no further token, and no grant is stored', async () => {
  const tenant = await machine();
  assert.equal((await postToken(server, credentials(tenant))).status, 200);
  await server.ctx.db.updateTable('api_clients').set({ disabled: 1 }).where('id', '=', tenant.clientId).execute();
  await refused(await postToken(server, credentials(tenant)), 401, 'invalid_client');
  assert.equal(await grantsOf(tenant), 1);
  await server.ctx.db.updateTable('api_clients').set({ disabled: 0 }).where('id', '=', tenant.clientId).execute();
  assert.equal((await postToken(server, credentials(tenant))).status, 200, 'enabled again, it gets tokens at once');
});

test('a secret replaced in the database stops at once; the new one works at once', async () => {
  const tenant = await machine();
  assert.equal((await postToken(server, credentials(tenant))).status, 200);
  const { secret, hash } = generateClientSecret();
  await server.ctx.db.updateTable('api_clients').set({ secret_hash: hash }).where('id', '=', tenant.clientId).execute();
  await refused(await postToken(server, credentials(tenant)), 401, 'invalid_client');
  assert.equal((await postToken(server, credentials(tenant, secret))).status, 200);
  assert.equal(await grantsOf(tenant), 2);
});

test('a grant withdrawn or an audience added in the database is seen by the next request', async () => {
  const tenant = await machine();
  assert.equal((await postToken(server, credentials(tenant))).status, 200);
  await server.ctx.db.updateTable('api_clients').set({ audiences: JSON.stringify(['service-api', 'reports']) }).where('id', '=', tenant.clientId).execute();
  const widened = await postToken(server, { ...credentials(tenant), audience: 'reports' });
  assert.equal(widened.status, 200, 'the new audience is allowed at once');
  await server.ctx.db.updateTable('api_clients').set({ grants: JSON.stringify(['authorization_code']) }).where('id', '=', tenant.clientId).execute();
  await refused(await postToken(server, credentials(tenant)), 400, 'unauthorized_client');
  assert.equal(await grantsOf(tenant), 2);
});

test('concurrent requests each get a token with its own stored grant and audit entry', async () => {
  const tenant = await machine();
  // Its first requests: they share one reserved check of the secret (client-auth.ts), so none is refused 429.
  const responses = await Promise.all(Array.from({ length: 24 }, () => postToken(server, credentials(tenant))));
  const sids = await Promise.all(responses.map(async (response) => {
    assert.equal(response.status, 200);
    const body = (await response.json()) as TokenBody;
    return (JSON.parse(Buffer.from(body.id_token.split('.')[1] ?? '', 'base64url').toString()) as { sid: string }).sid;
  }));
  assert.equal(new Set(sids).size, 24);
  const stored = await server.ctx.db.selectFrom('grants').select('id').where('id', 'in', sids).execute();
  assert.equal(stored.length, 24);
  const audited = await server.ctx.db.selectFrom('audit_log').select('id').where('client_id', '=', tenant.clientId).where('event', '=', 'token_issued').execute();
  assert.equal(audited.length, 24);
});
