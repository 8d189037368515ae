// Token revocation (RFC 7009): either token of a grant revokes the grant — refresh tokens at once,
// ID tokens on the secured API within 5 seconds. Client authentication is required; unknown tokens
// and other clients' tokens are answered 200 and revoke nothing. Operator actions revoke too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { rotateClientSecret } from '../../src/iam/client-admin.ts';
import { switchUser } from '../../src/admin/operations.ts';
import { configurationWith, loginAndExchange, renewAtIdToken } from './helpers.ts';
import { assertRefusedWithin } from '../support/http.ts';

const server = useTestServer({}, { inProcess: true });

function revoke(tenant: Tenant, token: string, init: { form?: boolean; secret?: string } = {}): Promise<Response> {
  const body = { token, client_id: tenant.clientId, client_secret: init.secret ?? tenant.clientSecret };
  return server.fetch(`${server.config.issuer}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': init.form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: init.form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  });
}

async function expectRevoked(tokens: { id_token: string; refresh_token?: string }): Promise<void> {
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 401, 'the refresh token fails at once');
  await assertRefusedWithin(server.baseUrl, tokens.id_token, 5000);
}

test('revoking the refresh token revokes the grant, ID token included', async () => {
  const tenant = await provisionTenant(server.ctx);
  const tokens = await loginAndExchange(server, tenant);
  const response = await revoke(tenant, tokens.refresh_token ?? '', { form: true });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  await expectRevoked(tokens);
});

test('revoking the ID token revokes the grant, refresh token included; another login is unaffected', async () => {
  const tenant = await provisionTenant(server.ctx);
  const tokens = await loginAndExchange(server, tenant);
  const otherLogin = await loginAndExchange(server, tenant);
  assert.equal((await revoke(tenant, tokens.id_token)).status, 200);
  await expectRevoked(tokens);
  assert.equal((await configurationWith(server, otherLogin.id_token)).status, 200);
  assert.equal((await renewAtIdToken(server, otherLogin.refresh_token ?? '')).status, 200);
  const audit = await server.ctx.db.selectFrom('audit_log').select(['event', 'outcome']).where('client_id', '=', tenant.clientId).where('event', '=', 'token_revoked').execute();
  assert.equal(audit.length, 1);
});

test('unknown tokens get 200; another client\'s token gets 200 and is not revoked', async () => {
  const tenant = await provisionTenant(server.ctx);
  const other = await provisionTenant(server.ctx);
  const tokens = await loginAndExchange(server, tenant);
  assert.equal((await revoke(other, 'garbage')).status, 200);
  assert.equal((await revoke(other, tokens.refresh_token ?? '')).status, 200);
  assert.equal((await revoke(other, tokens.id_token)).status, 200);
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 200);
  assert.equal((await configurationWith(server, tokens.id_token)).status, 200);
});

test('revocation requires client authentication and a token', async () => {
  const tenant = await provisionTenant(server.ctx);
  const tokens = await loginAndExchange(server, tenant);
  const unauthenticated = await revoke(tenant, tokens.refresh_token ?? '', { secret: 'wrong' });
  assert.equal(unauthenticated.status, 401);
  assert.equal(((await unauthenticated.json()) as { error: string }).error, 'invalid_client');
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 200);
  const missing = await revoke(tenant, '');
  assert.equal(missing.status, 400);
  assert.equal(((await missing.json()) as { error: string }).error, 'invalid_request');
});

test('disabling the user or rotating the client secret revokes the grants', async () => {
  const tenant = await provisionTenant(server.ctx);
  const tokens = await loginAndExchange(server, tenant);
  await switchUser(server.ctx.db, tenant.userId, true);
  await expectRevoked(tokens);

  const rotated = await provisionTenant(server.ctx);
  const rotatedTokens = await loginAndExchange(server, rotated);
  await rotateClientSecret(server.ctx.db, rotated.clientId);
  await expectRevoked(rotatedTokens);
});
