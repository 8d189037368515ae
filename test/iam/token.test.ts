// The token endpoint (contract: identity and access, "Token endpoint" and "Authorization code"): body formats, client
// authentication, audiences, the code's bindings (client, redirect URI, PKCE, expiry, single use and
// the revocation a replay triggers), optional grants, error codes and the audit log.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { switchClient, switchUser } from '../../src/admin/operations.ts';
import { configurationWith, loginForCode, postToken, renewAtIdToken } from './helpers.ts';
import { assertRefusedWithin } from '../support/http.ts';
import { codeExchange, type TokenBody } from '../support/login.ts';

let server: TestServer;
let tenant: Tenant;
/** The server's clock: a test moves it past a code's lifetime instead of waiting. */
const clock = new ManualClock();
before(async () => {
  server = await startTestServer({ AUTH_CODE_TTL: '1' }, { clock, inProcess: true });
  tenant = await provisionTenant(server.ctx);
});
after(() => server.close());

async function freshCode(t: Tenant = tenant, extra: Record<string, string> = {}): Promise<string> {
  return (await loginForCode(server, t, extra)).searchParams.get('code') ?? '';
}

async function expectOAuthError(response: Response, status: number, error: string): Promise<string> {
  assert.equal(response.status, status);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const body = (await response.json()) as { error: string; error_description: string };
  assert.equal(body.error, error, body.error_description);
  assert.ok(body.error_description);
  return body.error_description;
}

function basic(id: string, secret: string): string {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

function decodeClaims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

test('a code exchanges for exactly the documented body, with no-store headers', async () => {
  const response = await postToken(server, codeExchange(tenant, await freshCode()));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.headers.get('pragma'), 'no-cache');
  const body = (await response.json()) as TokenBody;
  assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
  assert.equal(body.access_token, body.id_token);
  assert.equal(body.token_type, 'Bearer');
  assert.equal(body.expires_in, 3600);
  assert.equal(body.scope, 'all');
  const header = JSON.parse(Buffer.from(body.refresh_token?.split('.')[0] ?? '', 'base64url').toString()) as { typ: string };
  assert.equal(header.typ, 'rt+jwt');
});

test('the body may be form-encoded and the client may authenticate with HTTP Basic (form-encoded credentials)', async () => {
  const { client_id: _id, client_secret: _secret, ...rest } = codeExchange(tenant, await freshCode());
  const response = await postToken(server, rest, { form: true, headers: { authorization: basic(tenant.clientId, tenant.clientSecret) } });
  assert.equal(response.status, 200);
  const both = await postToken(server, codeExchange(tenant, await freshCode()), { headers: { authorization: basic(tenant.clientId, tenant.clientSecret) } });
  await expectOAuthError(both, 400, 'invalid_request');
});

test('the audience may come in the query; an audience outside the client\'s is invalid_target', async () => {
  const { audience: _a, ...rest } = codeExchange(tenant, await freshCode());
  const viaQuery = await postToken(server, rest, { query: '?audience=service-api' });
  assert.equal(viaQuery.status, 200);
  assert.deepEqual(decodeClaims(((await viaQuery.json()) as TokenBody).id_token).aud, ['service-api', tenant.clientId]);
  const { audience: _b, ...noAudience } = codeExchange(tenant, await freshCode());
  assert.equal('audience' in noAudience, false);
  const defaulted = await postToken(server, noAudience);
  assert.equal(defaulted.status, 200);
  assert.deepEqual(decodeClaims(((await defaulted.json()) as TokenBody).id_token).aud, ['service-api', tenant.clientId], 'the audience defaults to service-api');
  const { audience: _c, ...formWithoutAudience } = codeExchange(tenant, await freshCode());
  const defaultedForm = await postToken(server, formWithoutAudience, { form: true });
  assert.equal(defaultedForm.status, 200);
  assert.deepEqual(decodeClaims(((await defaultedForm.json()) as TokenBody).id_token).aud, ['service-api', tenant.clientId]);
  await expectOAuthError(await postToken(server, codeExchange(tenant, await freshCode(), { audience: 'other-api' })), 400, 'invalid_target');
  await expectOAuthError(await postToken(server, rest, { query: '?audience=other-api' }), 400, 'invalid_target');
});

test('a wrong or missing client secret, or an unknown client, is 401 invalid_client with WWW-Authenticate', async () => {
  const code = await freshCode();
  for (const change of [{ client_secret: 'wrong' }, { client_secret: '' }, { client_id: 'cli_unknown' }] as Record<string, string>[]) {
    const response = await postToken(server, codeExchange(tenant, code, change));
    assert.match(response.headers.get('www-authenticate') ?? '', /^Basic/);
    await expectOAuthError(response, 401, 'invalid_client');
  }
  const { client_secret: _s, ...noSecret } = codeExchange(tenant, code);
  await expectOAuthError(await postToken(server, noSecret), 401, 'invalid_client');
  const { client_id: _i, client_secret: _t, ...anonymous } = codeExchange(tenant, code);
  await expectOAuthError(await postToken(server, anonymous), 401, 'invalid_client');
  await expectOAuthError(await postToken(server, {}, { headers: { authorization: basic(tenant.clientId, 'wrong') } }), 400, 'invalid_request');
  const stillGood = await postToken(server, codeExchange(tenant, code));
  assert.equal(stillGood.status, 200, 'failed attempts did not consume the code');
});

test('missing parameters are invalid_request; an unknown grant_type is unsupported_grant_type', async () => {
  const code = await freshCode();
  await expectOAuthError(await postToken(server, { client_id: tenant.clientId, client_secret: tenant.clientSecret }), 400, 'invalid_request');
  const { code: _c, ...noCode } = codeExchange(tenant, code);
  await expectOAuthError(await postToken(server, noCode), 400, 'invalid_request');
  const { redirect_uri: _r, ...noRedirect } = codeExchange(tenant, code);
  await expectOAuthError(await postToken(server, noRedirect), 400, 'invalid_request');
  await expectOAuthError(await postToken(server, codeExchange(tenant, code, { grant_type: 'password' })), 400, 'unsupported_grant_type');
  await expectOAuthError(await postToken(server, codeExchange(tenant, code, { scope: 'read' })), 400, 'invalid_scope');
  const malformed = await server.fetch(`${server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":' });
  assert.equal(malformed.status, 400);
  assert.equal(((await malformed.json()) as { error: string }).error, 'invalid_request');
});

test('no body at all is 400 invalid_request (every parameter missing); a body of another type is 415', async () => {
  const token = `${server.config.issuer}/oauth/token`;
  assert.match(await expectOAuthError(await server.fetch(token, { method: 'POST' }), 400, 'invalid_request'), /grant_type/);
  await expectOAuthError(await server.fetch(token, { method: 'POST', headers: { 'content-length': '0' } }), 400, 'invalid_request');
  await expectOAuthError(await server.fetch(token, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'grant_type=client_credentials' }), 415, 'invalid_request');
  // Revocation authenticates the client before anything else (RFC 7009 §2.1): no body, no client.
  const revoke = `${server.config.issuer}/oauth/revoke`;
  await expectOAuthError(await server.fetch(revoke, { method: 'POST' }), 401, 'invalid_client');
  await expectOAuthError(await server.fetch(revoke, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'token=x' }), 415, 'invalid_request');
});

test('an expired code is invalid_grant', async () => {
  const code = await freshCode();
  clock.advance(1100);
  const description = await expectOAuthError(await postToken(server, codeExchange(tenant, code)), 400, 'invalid_grant');
  assert.match(description, /expired/);
});

test('a code used by another client or with another redirect_uri is invalid_grant', async () => {
  const other = await provisionTenant(server.ctx);
  const code = await freshCode();
  await expectOAuthError(await postToken(server, { ...codeExchange(other, code) }), 400, 'invalid_grant');
  const twoUris = await provisionTenant(server.ctx, { redirectUris: ['https://a.example/cb', 'https://b.example/cb', 'http://127.0.0.1/cb'] });
  const codeForA = await freshCode(twoUris);
  await expectOAuthError(await postToken(server, codeExchange(twoUris, codeForA, { redirect_uri: 'https://b.example/cb' })), 400, 'invalid_grant');
  const loopback = await freshCode(twoUris, { redirect_uri: 'http://127.0.0.1:4444/cb' });
  await expectOAuthError(await postToken(server, codeExchange(twoUris, loopback, { redirect_uri: 'http://127.0.0.1:5555/cb' })), 400, 'invalid_grant');
  assert.equal((await postToken(server, codeExchange(twoUris, loopback, { redirect_uri: 'http://127.0.0.1:4444/cb' }))).status, 200);
});

test('PKCE: the verifier must match the challenge, and a verifier for a code without challenge is refused', async () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const params = { code_challenge: challenge, code_challenge_method: 'S256' };
  const code = await freshCode(tenant, params);
  await expectOAuthError(await postToken(server, codeExchange(tenant, code)), 400, 'invalid_grant');
  await expectOAuthError(await postToken(server, codeExchange(tenant, code, { code_verifier: randomBytes(32).toString('base64url') })), 400, 'invalid_grant');
  assert.equal((await postToken(server, codeExchange(tenant, code, { code_verifier: verifier }))).status, 200);
  const plain = await freshCode();
  const description = await expectOAuthError(await postToken(server, codeExchange(tenant, plain, { code_verifier: verifier })), 400, 'invalid_grant');
  assert.match(description, /without code_challenge/);
});

test('a replayed code is invalid_grant and revokes every token issued from it', async () => {
  const replayed = await provisionTenant(server.ctx);
  const code = await freshCode(replayed);
  const first = await postToken(server, codeExchange(replayed, code));
  assert.equal(first.status, 200);
  const tokens = (await first.json()) as TokenBody;
  assert.equal((await configurationWith(server, tokens.id_token)).status, 200);

  const description = await expectOAuthError(await postToken(server, codeExchange(replayed, code)), 400, 'invalid_grant');
  assert.match(description, /already been used/);
  await assertRefusedWithin(server.baseUrl, tokens.id_token, 5000);
  const refused = await configurationWith(server, tokens.id_token);
  assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  const renewal = await renewAtIdToken(server, tokens.refresh_token ?? '');
  assert.equal(renewal.status, 401);
  assert.match(renewal.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

  const audit = await server.ctx.db.selectFrom('audit_log').select(['event', 'outcome']).where('client_id', '=', replayed.clientId).where('event', '=', 'code_replay').execute();
  assert.deepEqual(audit.map((r) => ({ ...r })), [{ event: 'code_replay', outcome: 'revoked' }]);
});

test('concurrent exchanges of one code: exactly one succeeds (the single use is atomic)', async () => {
  const racer = await provisionTenant(server.ctx);
  const code = await freshCode(racer);
  const responses = await Promise.all(Array.from({ length: 5 }, () => postToken(server, codeExchange(racer, code))));
  const statuses = responses.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 400, 400, 400, 400]);
});

test('client_credentials and refresh_token need the operator to enable them (unauthorized_client)', async () => {
  const machine = await provisionTenant(server.ctx);
  const credentials = { grant_type: 'client_credentials', client_id: machine.clientId, client_secret: machine.clientSecret };
  await expectOAuthError(await postToken(server, credentials), 400, 'unauthorized_client');
  const tokens = (await (await postToken(server, codeExchange(machine, await freshCode(machine)))).json()) as TokenBody;
  const refresh = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id: machine.clientId, client_secret: machine.clientSecret };
  await expectOAuthError(await postToken(server, refresh), 400, 'unauthorized_client');

  await setGrantEnabled(server.ctx.db, machine.clientId, 'client_credentials', true);
  const issued = await postToken(server, credentials);
  assert.equal(issued.status, 200);
  const body = (await issued.json()) as TokenBody;
  assert.equal(body.refresh_token, undefined, 'client_credentials returns no refresh token');
  const claims = decodeClaims(body.id_token);
  assert.equal(claims.sub, machine.clientId);
  assert.equal(claims.email, undefined);
  assert.equal(claims.company_id, machine.companyId);
  assert.equal(claims.org_id, machine.organisationId);
  assert.equal((await configurationWith(server, body.id_token)).status, 200);
  // The token's grant and its audit entry are stored before the answer: revoking the grant reaches it.
  const grant = await server.ctx.db.selectFrom('grants').select(['kind', 'client_id', 'user_id']).where('id', '=', String(claims.sid)).executeTakeFirst();
  assert.deepEqual({ ...grant }, { kind: 'client_credentials', client_id: machine.clientId, user_id: null });
  const audited = await server.ctx.db.selectFrom('audit_log').select('outcome').where('client_id', '=', machine.clientId).where('detail', '=', 'client_credentials').execute();
  assert.deepEqual(audited.map((row) => row.outcome), ['success']);

  await setGrantEnabled(server.ctx.db, machine.clientId, 'refresh_token', true);
  const refreshed = await postToken(server, refresh);
  assert.equal(refreshed.status, 200);
  const other = await provisionTenant(server.ctx);
  await setGrantEnabled(server.ctx.db, other.clientId, 'refresh_token', true);
  await expectOAuthError(await postToken(server, { ...refresh, client_id: other.clientId, client_secret: other.clientSecret }), 400, 'invalid_grant');
  await expectOAuthError(await postToken(server, { ...refresh, refresh_token: tokens.id_token }), 400, 'invalid_grant');
});

// What disabling (and re-enabling) a client or rotating its secret does to a pending code, with the
// client's credentials valid again, is in grant-effects.test.ts (this file's codes expire in 1 s).
test('a disabled client cannot exchange; a disabled user\'s pending code is void', async () => {
  const disabledClient = await provisionTenant(server.ctx);
  const code = await freshCode(disabledClient);
  await switchClient(server.ctx.db, disabledClient.clientId, true);
  await expectOAuthError(await postToken(server, codeExchange(disabledClient, code)), 401, 'invalid_client');

  const disabledUser = await provisionTenant(server.ctx);
  const userCode = await freshCode(disabledUser);
  await switchUser(server.ctx.db, disabledUser.userId, true);
  await expectOAuthError(await postToken(server, codeExchange(disabledUser, userCode)), 400, 'invalid_grant');
});

test('authorization codes are stored only as the SHA-256 hash (base64url) of the code', async () => {
  const hashed = await provisionTenant(server.ctx);
  const code = await freshCode(hashed);
  assert.ok(code.length >= 43, 'at least 256 bits, base64url');
  const rows = await server.ctx.db.selectFrom('authorization_codes').selectAll().execute();
  assert.ok(rows.length > 0);
  for (const row of rows) {
    for (const value of Object.values(row)) assert.ok(!String(value).includes(code), 'no column holds the code');
  }
  const expected = createHash('sha256').update(code).digest('base64url');
  const stored = rows.filter((row) => row.code_hash === expected);
  assert.equal(stored.length, 1);
  assert.equal(stored[0]?.client_id, hashed.clientId);
  assert.equal(stored[0]?.user_id, hashed.userId);
  assert.equal(stored[0]?.used_at, null);
});

test('token events are audited without secrets', async () => {
  const audited = await provisionTenant(server.ctx);
  await postToken(server, codeExchange(audited, 'bogus', { client_secret: 'wrong' }));
  await postToken(server, codeExchange(audited, 'bogus'));
  await postToken(server, codeExchange(audited, await freshCode(audited)));
  const rows = await server.ctx.db.selectFrom('audit_log').select(['event', 'outcome', 'detail']).where('client_id', '=', audited.clientId).where('event', '!=', 'operator_change').orderBy('at').execute();
  assert.deepEqual(rows.map((r) => `${r.event}/${r.outcome}/${r.detail}`).sort(), [
    'client_authentication/failure/bad_credentials_or_disabled',
    'login/success/null',
    'token_issued/failure/authorization_code_refused',
    'token_issued/success/authorization_code',
  ]);
  const everything = JSON.stringify(await server.ctx.db.selectFrom('audit_log').selectAll().execute());
  assert.ok(!everything.includes(audited.clientSecret) && !everything.includes('bogus'));
});
