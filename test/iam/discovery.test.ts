// Discovery and the JWKS are public metadata: readable from any origin (CORS), like any OpenID
// provider's, while the login page keeps sending no CORS header at all (CONTRACT §2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { mintTokens, provisionTenant } from '../support/tenants.ts';

const server = useTestServer({}, { inProcess: true });
const ORIGIN = 'https://spa.customer.example';
const METADATA = ['/api/v1/iam/.well-known/openid-configuration', '/api/v1/iam/.well-known/jwks.json'];

for (const path of METADATA) {
  test(`${path} answers a cross-origin GET with Access-Control-Allow-Origin: *`, async () => {
    const response = await server.fetch(`${server.baseUrl}${path}`, { headers: { origin: ORIGIN } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
    assert.ok(await response.json());
  });

  test(`${path} answers the preflight: GET from any origin`, async () => {
    const response = await server.fetch(`${server.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.equal(response.headers.get('access-control-allow-methods'), 'GET');
    assert.equal(response.headers.get('access-control-allow-headers'), '*');
    assert.equal(await response.text(), '');
  });
}

test('the login page sends no CORS header, to a GET or a preflight', async () => {
  const page = await server.fetch(`${server.baseUrl}/oauth/authorize`, { headers: { origin: ORIGIN } });
  assert.equal(page.headers.get('access-control-allow-origin'), null);
  const preflight = await server.fetch(`${server.baseUrl}/oauth/authorize`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
  assert.notEqual(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), null);
  assert.equal(preflight.headers.get('access-control-allow-methods'), null);
});

test('claims_supported lists every claim an ID token carries, and amr and idp of single sign-on (CONTRACT §8)', async () => {
  const tenant = await provisionTenant(server.ctx);
  const { id_token: idToken } = await mintTokens(server.ctx, tenant);
  const claims = Object.keys(JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString()) as object);
  const metadata = (await (await server.fetch(`${server.baseUrl}/api/v1/iam/.well-known/openid-configuration`)).json()) as { claims_supported: string[] };
  for (const claim of [...claims, 'amr', 'idp']) assert.ok(metadata.claims_supported.includes(claim), claim);
});
