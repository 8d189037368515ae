// Forged and misused tokens are refused on the secured API and at idToken: alg "none", HS256 keyed
// with the published public key, an unknown kid, a foreign key under a known kid, and tokens signed
// with the real key but with a wrong issuer, a wrong audience, the wrong type, or expired. An ID token
// minted with a stolen key and a distant `exp` lives no longer than ACCESS_TOKEN_TTL from its `iat`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { useCompanyServer } from '../support/company.ts';
import { bearer } from '../support/tenants.ts';

const company = useCompanyServer({ env: { CLOCK_SKEW_SECONDS: '0' }, inProcess: true });

function parts(jwt: string): { header: Record<string, unknown>; payload: JWTPayload } {
  const [header, payload] = jwt.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>);
  return { header: header ?? {}, payload: (payload ?? {}) };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const nowSeconds = () => Math.floor(Date.now() / 1000);

async function realKey() {
  return company.server.ctx.keys.signingKey();
}

async function resign(jwt: string, change: { header?: Record<string, unknown>; payload?: JWTPayload }): Promise<string> {
  const { header, payload } = parts(jwt);
  const { kid, privateKey } = await realKey();
  return new SignJWT({ ...payload, ...change.payload }).setProtectedHeader({ alg: 'ES256', kid, typ: String(header.typ), ...change.header }).sign(privateKey);
}

async function forgeries(jwt: string): Promise<Record<string, string>> {
  const { header, payload } = parts(jwt);
  const jwks = (await (await company.server.fetch(`${company.server.config.issuer}/.well-known/jwks.json`)).json()) as { keys: Record<string, unknown>[] };
  const publicJwk = jwks.keys[0] ?? {};
  const hmacKey = new TextEncoder().encode(JSON.stringify(publicJwk));
  const foreign = await generateKeyPair('ES256', { extractable: true });
  const now = Math.floor(Date.now() / 1000);
  return {
    'alg none': `${b64({ ...header, alg: 'none' })}.${b64(payload)}.`,
    'HS256 keyed with the public key': await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'HS256' }).sign(hmacKey),
    'HS256 keyed with the public key x coordinate': await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'HS256' }).sign(new TextEncoder().encode(String(publicJwk.x))),
    'unknown kid': await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: 'key_unknown', typ: String(header.typ) }).sign(foreign.privateKey),
    'foreign key under the real kid': await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: String(header.kid), typ: String(header.typ) }).sign(foreign.privateKey),
    'embedded jwk': await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: String(header.typ), jwk: await exportJWK(foreign.publicKey) }).sign(foreign.privateKey),
    'wrong issuer': await resign(jwt, { payload: { iss: 'https://evil.example/api/v1/iam' } }),
    'expired': await resign(jwt, { payload: { iat: now - 7200, exp: now - 10 } }),
    'tampered payload': `${jwt.split('.')[0]}.${b64({ ...payload, company_id: 'cmp_other' })}.${jwt.split('.')[2]}`,
  };
}

test('forged ID tokens are refused on the secured API with invalid_token', async () => {
  const forged = {
    ...(await forgeries(company.token)),
    'wrong audience': await resign(company.token, { payload: { aud: ['other-api', company.tenant.clientId] } }),
    'refresh token type': await resign(company.token, { header: { typ: 'rt+jwt' } }),
    'issued longer ago than ACCESS_TOKEN_TTL, with a distant exp': await resign(company.token, { payload: { iat: nowSeconds() - 3601, exp: nowSeconds() + 365 * 86_400 } }),
    'issued in the future': await resign(company.token, { payload: { iat: nowSeconds() + 60, exp: nowSeconds() + 3660 } }),
  };
  for (const [name, token] of Object.entries(forged)) {
    const response = await company.server.fetch(`${company.server.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
    assert.equal(response.status, 401, name);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/, name);
    assert.equal(((await response.json()) as { code: string }).code, 'invalid_token', name);
  }
  const genuine = await company.server.fetch(`${company.server.baseUrl}/api/v1/company/configuration`, { headers: bearer(company.token) });
  assert.equal(genuine.status, 200, 'the untouched token works: the forgeries failed for their flaw');
});

test('an ID token with a distant exp, verified and cached, is refused once ACCESS_TOKEN_TTL has passed since its iat', async () => {
  const token = await resign(company.token, { payload: { iat: nowSeconds() - 3600 + 1, exp: nowSeconds() + 365 * 86_400 } });
  const configuration = () => company.server.fetch(`${company.server.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
  assert.equal((await configuration()).status, 200, 'within its lifetime');
  await sleep(2100);
  const late = await configuration();
  assert.equal(late.status, 401);
  assert.equal(((await late.json()) as { detail: string }).detail, 'The token has expired.');
});

test('forged refresh tokens are refused at idToken with invalid_token', async () => {
  const forged = {
    ...(await forgeries(company.refreshToken)),
    'wrong audience': await resign(company.refreshToken, { payload: { aud: 'service-api' } }),
    'ID token type': await resign(company.refreshToken, { header: { typ: 'JWT' } }),
    'unknown jti': await resign(company.refreshToken, { payload: { jti: 'rt_unknown' } }),
    'other grant': await resign(company.refreshToken, { payload: { sid: 'sid_other' } }),
  };
  for (const [name, token] of Object.entries(forged)) {
    const response = await company.server.fetch(`${company.server.config.issuer}/idToken`, { method: 'POST', headers: bearer(token) });
    assert.equal(response.status, 401, name);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/, name);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_token', name);
  }
  const genuine = await company.server.fetch(`${company.server.config.issuer}/idToken`, { method: 'POST', headers: bearer(company.refreshToken) });
  assert.equal(genuine.status, 200);
});

test('a refresh token is refused on a secured route, an ID token at idToken', async () => {
  const onApi = await company.server.fetch(`${company.server.baseUrl}/api/v1/company/configuration`, { headers: bearer(company.refreshToken) });
  assert.equal(onApi.status, 401);
  assert.match(((await onApi.json()) as { detail: string }).detail, /not an ID token/);
  const atIdToken = await company.server.fetch(`${company.server.config.issuer}/idToken`, { method: 'POST', headers: bearer(company.token) });
  assert.equal(atIdToken.status, 401);
  assert.match(((await atIdToken.json()) as { error_description: string }).error_description, /not a refresh token/);
});
