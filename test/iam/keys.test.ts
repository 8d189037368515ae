// Signing-key rotation (CONTRACT §2 "Keys"): a new key is published in the JWKS before it signs,
// and tokens signed by the previous key keep verifying after the switch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../support/server.ts';
import { bearer, provisionTenant, type Tenant } from '../support/tenants.ts';
import { rotateSigningKey } from '../../src/iam/keys.ts';
import { configurationWith, loginAndExchange, renewAtIdToken } from './helpers.ts';
import type { TokenBody } from '../support/login.ts';

let server: TestServer;
let tenant: Tenant;
before(async () => {
  server = await startTestServer();
  tenant = await provisionTenant(server.ctx);
});
after(() => server.close());

function kidOf(jwt: string): string {
  return (JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
}

async function publishedKids(): Promise<string[]> {
  const jwks = (await (await fetch(`${server.config.issuer}/.well-known/jwks.json`)).json()) as { keys: Record<string, string>[] };
  for (const key of jwks.keys) {
    assert.equal(key.alg, 'ES256');
    assert.equal(key.use, 'sig');
    assert.equal(key.d, undefined, 'never a private key');
  }
  return jwks.keys.map((k) => k.kid ?? '');
}

async function renewedIdToken(refreshToken: string): Promise<string> {
  const response = await renewAtIdToken(server, refreshToken);
  assert.equal(response.status, 200);
  return ((await response.json()) as TokenBody).id_token;
}

test('a rotated key is published before it signs; tokens of the old key keep verifying', async () => {
  const tokens = await loginAndExchange(server, tenant);
  const oldKid = kidOf(tokens.id_token);
  assert.deepEqual(await publishedKids(), [oldKid]);

  const { kid: newKid } = await rotateSigningKey(server.ctx.db, { activateInSeconds: 1, retainSeconds: 3600 });
  await server.ctx.keys.reload();
  assert.deepEqual((await publishedKids()).sort(), [newKid, oldKid].sort(), 'published at once');
  assert.equal(kidOf(await renewedIdToken(tokens.refresh_token ?? '')), oldKid, 'but not signing before its activation');

  await sleep(1100);
  const signedByNew = await renewedIdToken(tokens.refresh_token ?? '');
  assert.equal(kidOf(signedByNew), newKid);
  assert.equal((await configurationWith(server, signedByNew)).status, 200);
  assert.equal((await configurationWith(server, tokens.id_token)).status, 200, 'the old key still verifies');
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 200, 'a refresh token of the old key still works');

  const { kid: immediateKid } = await rotateSigningKey(server.ctx.db, { activateInSeconds: 0, retainSeconds: 3600 });
  await server.ctx.keys.reload();
  const signedByImmediate = await renewedIdToken(tokens.refresh_token ?? '');
  assert.equal(kidOf(signedByImmediate), immediateKid);
  assert.ok((await publishedKids()).includes(immediateKid));
  for (const token of [tokens.id_token, signedByNew, signedByImmediate]) {
    const response = await fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
    assert.equal(response.status, 200);
  }
});
