// What operator changes do to codes and tokens already handed out (contract: identity and access, "Revocation reaches
// access tokens too", §5): disabling a client or user, or rotating a client's secret, voids every code
// not yet exchanged — for good, re-enabling brings none back; disabling the refresh_token grant only
// closes that grant type at the token endpoint and revokes nothing.
// Codes here live the default 180 s, so a refused code is refused for being void, never for expiring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { codeExchange, type TokenBody } from '../support/login.ts';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { rotateClientSecret } from '../../src/iam/client-admin.ts';
import { switchClient, switchUser } from '../../src/admin/operations.ts';
import { runWfsJson } from '../support/processes.ts';
import { configurationWith, loginForCode, postToken, renewAtIdToken } from './helpers.ts';

const clock = new ManualClock();
const server = useTestServer({}, { clock });

async function freshCode(tenant: Tenant): Promise<string> {
  return (await loginForCode(server, tenant)).searchParams.get('code') ?? '';
}

async function expectInvalidGrant(response: Response): Promise<void> {
  const body = (await response.json()) as { error: string; error_description: string };
  assert.equal(response.status, 400, JSON.stringify(body));
  assert.equal(body.error, 'invalid_grant', body.error_description);
  assert.match(body.error_description, /withdrawn before it was exchanged/, 'refused for being void: neither for its age nor as a replay');
}

test('a code issued before the client was disabled stays void after the client is enabled again', async () => {
  const tenant = await provisionTenant(server.ctx);
  const code = await freshCode(tenant);
  await switchClient(server.ctx.db, tenant.clientId, true);
  await switchClient(server.ctx.db, tenant.clientId, false);
  // The client authenticates (its secret is unchanged and it is enabled): only the code is refused.
  await expectInvalidGrant(await postToken(server, codeExchange(tenant, code)));
  const later = await postToken(server, codeExchange(tenant, await freshCode(tenant)));
  assert.equal(later.status, 200, 'a code issued after re-enabling exchanges with the same credentials');
});

test('a code issued before the client secret was rotated cannot be exchanged with the new secret', async () => {
  const tenant = await provisionTenant(server.ctx);
  const code = await freshCode(tenant);
  const { clientSecret } = await rotateClientSecret(server.ctx.db, tenant.clientId);
  const rotated = { ...tenant, clientSecret };
  await expectInvalidGrant(await postToken(server, codeExchange(rotated, code)));
  const later = await postToken(server, codeExchange(rotated, await freshCode(tenant)));
  assert.equal(later.status, 200, 'a code issued after the rotation exchanges with the new secret');
});

test('a code issued before its user was disabled stays void after the user is enabled again', async () => {
  const tenant = await provisionTenant(server.ctx);
  const code = await freshCode(tenant);
  await switchUser(server.ctx.db, tenant.userId, true);
  await switchUser(server.ctx.db, tenant.userId, false);
  await expectInvalidGrant(await postToken(server, codeExchange(tenant, code)));
  assert.equal((await postToken(server, codeExchange(tenant, await freshCode(tenant)))).status, 200);
});

test('only its own client learns that a code was withdrawn; another client is told the code is not its own', async () => {
  const owner = await provisionTenant(server.ctx);
  const stranger = await provisionTenant(server.ctx);
  const code = await freshCode(owner);
  await switchUser(server.ctx.db, owner.userId, true);
  const response = await postToken(server, codeExchange(stranger, code, { redirect_uri: owner.redirectUri }));
  const body = (await response.json()) as { error: string; error_description: string };
  assert.equal(response.status, 400);
  assert.equal(body.error, 'invalid_grant');
  assert.match(body.error_description, /issued to another client/);
});

test('disabling the client voids only its own pending codes', async () => {
  const disabled = await provisionTenant(server.ctx);
  const bystander = await provisionTenant(server.ctx);
  const bystanderCode = await freshCode(bystander);
  await switchClient(server.ctx.db, disabled.clientId, true);
  assert.equal((await postToken(server, codeExchange(bystander, bystanderCode))).status, 200);
});

test('disabling the refresh_token grant (wfs disable-grant) revokes nothing: ID tokens and idToken renewal keep working', async () => {
  const tenant = await provisionTenant(server.ctx);
  await setGrantEnabled(server.ctx.db, tenant.clientId, 'refresh_token', true);
  const exchanged = await postToken(server, codeExchange(tenant, await freshCode(tenant)));
  assert.equal(exchanged.status, 200);
  const tokens = (await exchanged.json()) as TokenBody;
  const refreshGrant = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id: tenant.clientId, client_secret: tenant.clientSecret };
  assert.equal((await postToken(server, refreshGrant)).status, 200, 'enabled: grant_type=refresh_token works');

  const disabled = await runWfsJson(['disable-grant', '--client', tenant.clientId, '--grant', 'refresh_token'], { DATABASE_URL: server.config.databaseUrl });
  assert.equal(disabled.code, 0, disabled.stderr);
  assert.deepEqual(disabled.json, { clientId: tenant.clientId, grants: ['authorization_code'] });

  // Closed at the token endpoint...
  const refused = await postToken(server, refreshGrant);
  assert.equal(refused.status, 400);
  assert.equal(((await refused.json()) as { error: string }).error, 'unauthorized_client');
  // ...and nothing else: no grant is revoked, so the ID token outlives several revocation polls.
  for (let poll = 0; poll < 3; poll++) {
    clock.advance(server.config.revocationRefreshMs);
    await clock.settled();
  }
  assert.equal((await configurationWith(server, tokens.id_token)).status, 200, 'the ID token still works');
  const renewal = await renewAtIdToken(server, tokens.refresh_token ?? '');
  assert.equal(renewal.status, 200, 'the refresh token still renews at idToken');
  const renewed = (await renewal.json()) as TokenBody;
  assert.equal((await configurationWith(server, renewed.id_token)).status, 200, 'and the renewed ID token works');
  const revoked = await server.ctx.db.selectFrom('grants').select('id').where('client_id', '=', tenant.clientId).where('revoked_at', 'is not', null).execute();
  assert.deepEqual(revoked, []);
});
