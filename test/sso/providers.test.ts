// SSO providers per organisation (CONTRACT §8), managed through the operator API and `wfs`: the issuer
// checked against its discovery document, the client secret sealed at rest and never shown again,
// email domains unique across every provider, enforcement per organisation, removal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { bearer, provisionTenant } from '../support/tenants.ts';
import { addSsoProvider } from '../../src/sso/providers.ts';
import { loadSecretBox } from '../../src/sso/secrets-key.ts';
import { startIdentityProvider, type IdentityProvider } from './identity-provider.ts';
import { wfs, wfsJson } from '../cli/wfs.ts';
import { assertRefusedWithin, configurationStatus } from '../support/http.ts';
import { codeExchange, type TokenBody } from '../support/login.ts';
import { loginAndExchange, loginForCode, postToken, renewAtIdToken } from '../iam/helpers.ts';
import { ssoTenant } from './fixtures.ts';
import { CookieJar, locationOf, ssoLogin } from './flow.ts';

const ADMIN_TOKEN = 'operator-token-for-tests-0123456789';

let server: TestServer;
let idp: IdentityProvider;
before(async () => {
  server = await startTestServer({ ADMIN_TOKEN, SSO_ALLOW_INSECURE: '1' }, { inProcess: true });
  idp = await startIdentityProvider(`${server.config.authUrl}/oauth/sso/callback`);
});
after(async () => {
  await Promise.all([server.close(), idp.close()]);
});

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await server.fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { ...bearer(ADMIN_TOKEN), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function providerBody(domains: string[], overrides: Record<string, unknown> = {}) {
  return { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains, ...overrides };
}

test('an operator adds a provider; the list shows it without its secret, which is stored sealed', async () => {
  const { organisationId } = await provisionTenant(server.ctx, { name: 'Sealed' });
  const added = await admin('POST', `/api/v1/admin/organisations/${organisationId}/sso/providers`, providerBody(['Sealed.example', 'sealed-two.example']));
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const providerId = String(added.body.providerId);
  assert.match(providerId, /^idp_/);

  const listed = await admin('GET', `/api/v1/admin/organisations/${organisationId}/sso`);
  assert.equal(listed.status, 200);
  const providers = listed.body.providers as Record<string, unknown>[];
  assert.ok(providers.every((p) => typeof p.createdAt === 'string' && typeof p.updatedAt === 'string'));
  assert.deepEqual({ ...listed.body, providers: providers.map((p) => ({ ...p, createdAt: undefined, updatedAt: undefined })) }, {
    organisationId,
    enforceSso: false,
    providers: [{ providerId, organisationId, issuer: idp.issuer, clientId: idp.clientId, domains: ['sealed-two.example', 'sealed.example'], createdAt: undefined, updatedAt: undefined }],
  });
  assert.doesNotMatch(JSON.stringify(listed.body), new RegExp(idp.clientSecret));

  const row = await server.ctx.db.selectFrom('sso_providers').select('client_secret_encrypted').where('id', '=', providerId).executeTakeFirstOrThrow();
  assert.doesNotMatch(row.client_secret_encrypted, new RegExp(idp.clientSecret));
  assert.match(row.client_secret_encrypted, /^v2\.[\w-]{8}\./, 'the sealed value names the key that sealed it');
  const box = await loadSecretBox(server.ctx.db, server.config, () => {});
  assert.equal(box.open(row.client_secret_encrypted, providerId), idp.clientSecret);
  assert.throws(() => box.open(row.client_secret_encrypted, 'idp_another'), /does not open/, 'a sealed secret moved to another provider does not open');
});

test('a domain belongs to one provider: a second claim, from any organisation, is refused and stores nothing', async () => {
  const first = await provisionTenant(server.ctx, { name: 'First claim' });
  const second = await provisionTenant(server.ctx, { name: 'Second claim' });
  assert.equal((await admin('POST', `/api/v1/admin/organisations/${first.organisationId}/sso/providers`, providerBody(['claimed.example']))).status, 201);

  const refused = await admin('POST', `/api/v1/admin/organisations/${second.organisationId}/sso/providers`, providerBody(['other.example', 'CLAIMED.example']));
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'sso_domain_taken');
  assert.match(String(refused.body.detail), /claimed\.example/);
  assert.deepEqual((await admin('GET', `/api/v1/admin/organisations/${second.organisationId}/sso`)).body.providers, []);
  const orphan = await server.ctx.db.selectFrom('sso_domains').select('domain').where('domain', '=', 'other.example').executeTakeFirst();
  assert.equal(orphan, undefined, 'the refused provider left no domain behind');

  const mine = await provisionTenant(server.ctx, { name: 'Third claim' });
  const added = await admin('POST', `/api/v1/admin/organisations/${mine.organisationId}/sso/providers`, providerBody(['third.example']));
  const moved = await admin('PATCH', `/api/v1/admin/sso-providers/${String(added.body.providerId)}`, { domains: ['third.example', 'claimed.example'] });
  assert.equal(moved.status, 409, 'an update cannot take another provider\'s domain either');
});

test('the issuer must be https (http only on loopback with SSO_ALLOW_INSECURE=1) and equal to its discovery document\'s', async () => {
  const { organisationId } = await provisionTenant(server.ctx, { name: 'Issuers' });
  const path = `/api/v1/admin/organisations/${organisationId}/sso/providers`;
  const plainHttp = await admin('POST', path, providerBody(['issuers.example'], { issuer: 'http://idp.example.com' }));
  assert.equal(plainHttp.status, 400);
  assert.deepEqual(plainHttp.body.errors, [{ path: '/issuer', message: 'must be https (http only on a loopback host)' }]);

  const templated = await admin('POST', path, providerBody(['issuers.example'], { issuer: 'https://login.microsoftonline.com/{tenantid}/v2.0' }));
  assert.equal(templated.status, 400);
  assert.match(JSON.stringify(templated.body.errors), /one tenant/);

  // The document at localhost names 127.0.0.1: not the same issuer.
  const otherName = await admin('POST', path, providerBody(['issuers.example'], { issuer: idp.issuer.replace('127.0.0.1', 'localhost') }));
  assert.equal(otherName.status, 400);
  assert.equal(otherName.body.code, 'sso_discovery_failed');
  assert.match(String(otherName.body.detail), /issuer/);

  const badFields = await admin('POST', path, providerBody(['not a domain', 'ok.example', 'ok.example'], { clientId: '' }));
  assert.equal(badFields.status, 400);
  assert.deepEqual(badFields.body.errors, [
    { path: '/clientId', message: 'is required' },
    { path: '/domains/0', message: 'must be an email domain such as example.com (IDNs in punycode)' },
    { path: '/domains/2', message: 'is listed twice' },
  ]);

  const strict = { box: await loadSecretBox(server.ctx.db, server.config, () => {}), allowInsecure: false };
  await assert.rejects(addSsoProvider(server.ctx.db, strict, { organisationId, issuer: idp.issuer, clientId: 'a', clientSecret: 'b', domains: ['strict.example'] }), /issuer/, 'without SSO_ALLOW_INSECURE http is refused even on loopback');
  await assert.rejects(
    addSsoProvider(server.ctx.db, strict, { organisationId, issuer: idp.issuer.replace('http:', 'https:'), clientId: 'a', clientSecret: 'b', domains: ['strict.example'] }),
    (error: Error & { code?: string }) => error.code === 'sso_discovery_failed' && /not a public address/.test(error.message),
    'without SSO_ALLOW_INSECURE a loopback address is never called (SSRF)',
  );
});

test('update re-seals a new secret and replaces the domains; enforcement is per organisation; unknown ids are 404', async () => {
  const { organisationId } = await provisionTenant(server.ctx, { name: 'Updates' });
  const added = await admin('POST', `/api/v1/admin/organisations/${organisationId}/sso/providers`, providerBody(['updates.example']));
  const providerId = String(added.body.providerId);
  const before = await server.ctx.db.selectFrom('sso_providers').select('client_secret_encrypted').where('id', '=', providerId).executeTakeFirstOrThrow();
  const updated = await admin('PATCH', `/api/v1/admin/sso-providers/${providerId}`, { clientSecret: 'a-new-secret', domains: ['updates-new.example'] });
  assert.equal(updated.status, 200);
  assert.deepEqual(updated.body.domains, ['updates-new.example']);
  assert.equal(updated.body.clientSecret, undefined);
  const after = await server.ctx.db.selectFrom('sso_providers').select('client_secret_encrypted').where('id', '=', providerId).executeTakeFirstOrThrow();
  assert.notEqual(after.client_secret_encrypted, before.client_secret_encrypted);

  assert.deepEqual((await admin('PUT', `/api/v1/admin/organisations/${organisationId}/sso/enforcement`, { enforceSso: true })).body, { organisationId, enforceSso: true });
  assert.equal((await admin('GET', `/api/v1/admin/organisations/${organisationId}/sso`)).body.enforceSso, true);
  assert.equal((await admin('PATCH', '/api/v1/admin/sso-providers/idp_unknown', { clientId: 'x' })).status, 404);
  assert.equal((await admin('GET', '/api/v1/admin/organisations/org_unknown/sso')).status, 404);
  assert.deepEqual((await admin('DELETE', `/api/v1/admin/sso-providers/${providerId}`)).body, { providerId, removed: true, revokedGrants: 0 });
  assert.equal((await admin('DELETE', `/api/v1/admin/sso-providers/${providerId}`)).status, 404);
});

test('wfs adds, lists, updates, enforces and removes providers, printing the documented JSON', async () => {
  const url = server.config.databaseUrl;
  const env = { SSO_ALLOW_INSECURE: '1' };
  const { organisationId } = await provisionTenant(server.ctx, { name: 'Command line' });
  const added = await wfsJson(url, ['add-sso-provider', '--org', organisationId, '--issuer', idp.issuer, '--client-id', idp.clientId, '--client-secret', idp.clientSecret, '--domain', 'cli-one.example', '--domain', 'cli-two.example'], env);
  assert.deepEqual(Object.keys(added), ['providerId']);
  const providerId = String(added.providerId);

  const listed = await wfsJson(url, ['sso-providers', '--org', organisationId], env);
  assert.equal(listed.enforceSso, false);
  assert.deepEqual((listed.providers as { domains: string[] }[])[0]?.domains, ['cli-one.example', 'cli-two.example']);

  const updated = await wfsJson(url, ['update-sso-provider', '--provider', providerId, '--domain', 'cli-three.example'], env);
  assert.deepEqual(updated.domains, ['cli-three.example']);
  assert.deepEqual(await wfsJson(url, ['set-sso-enforcement', '--org', organisationId, '--enforce', 'on'], env), { organisationId, enforceSso: true });

  const sameIssuer = await wfs(url, ['add-sso-provider', '--org', organisationId, '--issuer', idp.issuer, '--client-id', 'x', '--client-secret', 'y', '--domain', 'cli-four.example', '--json'], env);
  assert.match(sameIssuer.stdout.trim().split('\n').at(-1) ?? '', /already has a provider for/);
  const other = await provisionTenant(server.ctx, { name: 'Command line two' });
  const taken = await wfs(url, ['add-sso-provider', '--org', other.organisationId, '--issuer', idp.issuer, '--client-id', 'x', '--client-secret', 'y', '--domain', 'cli-three.example', '--json'], env);
  assert.notEqual(taken.code, 0);
  assert.match(taken.stdout.trim().split('\n').at(-1) ?? '', /"error":".*cli-three\.example/);

  assert.deepEqual(await wfsJson(url, ['remove-sso-provider', '--provider', providerId], env), { providerId, removed: true, revokedGrants: 0 });
});

async function exchanged(response: Response): Promise<TokenBody> {
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as TokenBody;
}

test('enforcing SSO ends the sessions of secret logins (refresh and ID tokens, codes not yet exchanged); SSO logins and client credentials stay', async () => {
  const sso = await ssoTenant(server, idp, { grants: ['sso', 'refresh_token', 'client_credentials'] });
  const { tenant } = sso;
  const secretLogin = await loginAndExchange(server, tenant);
  const unexchanged = (await loginForCode(server, tenant)).searchParams.get('code') ?? '';
  const federated = await ssoLogin(new CookieJar(), server.config.authUrl, tenant, sso.user.email, sso.user.sub);
  const ssoTokens = await exchanged(await postToken(server, codeExchange(tenant, locationOf(federated.response, server.config.authUrl).searchParams.get('code') ?? '', { code_verifier: federated.request.verifier })));
  const clientTokens = await exchanged(await postToken(server, { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }));

  const enforced = await admin('PUT', `/api/v1/admin/organisations/${tenant.organisationId}/sso/enforcement`, { enforceSso: true });
  assert.deepEqual(enforced.body, { organisationId: tenant.organisationId, enforceSso: true });

  await assertRefusedWithin(server.baseUrl, secretLogin.id_token, 5000);
  assert.equal((await renewAtIdToken(server, secretLogin.refresh_token ?? '')).status, 401, 'the secret login\'s refresh chain ends');
  const late = await postToken(server, codeExchange(tenant, unexchanged));
  assert.equal(late.status, 400);
  assert.match(((await late.json()) as { error_description: string }).error_description, /through its identity provider only/);
  assert.equal((await renewAtIdToken(server, ssoTokens.refresh_token ?? '')).status, 200, 'the SSO login renews');
  assert.equal(await configurationStatus(server.baseUrl, ssoTokens.id_token), 200);
  assert.equal(await configurationStatus(server.baseUrl, clientTokens.id_token), 200, 'client credentials are no API User\'s secret login');

  const audit = await server.ctx.db.selectFrom('audit_log').select('context').where('organisation_id', '=', tenant.organisationId).where('detail', '=', 'sso_enforcement_on').executeTakeFirstOrThrow();
  assert.deepEqual(JSON.parse(audit.context ?? 'null'), { revokedGrants: 1 });
  const revoked = await server.ctx.db.selectFrom('grants').select('revoked_reason').where('client_id', '=', tenant.clientId).where('revoked_at', 'is not', null).execute();
  assert.deepEqual(revoked.map((g) => g.revoked_reason).sort(), ['disabled_during_exchange', 'sso_enforced']);
});
