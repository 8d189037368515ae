// Signing-key rotation (contract: identity and access, "Keys"): a new key is published in the JWKS before it signs,
// tokens signed by the previous key keep verifying after the switch, and a retired key leaves the JWKS
// (and stops verifying) once its retention, the lifetime of every token it signed, has passed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { bearer, provisionTenant, type Tenant } from '../support/tenants.ts';
import { rotateSigningKey } from '../../src/iam/keys.ts';
import { configurationWith, loginAndExchange, renewAtIdToken } from './helpers.ts';
import type { TokenBody } from '../support/login.ts';

let server: TestServer;
let tenant: Tenant;
/** The server's clock: tests move it past an activation or a retention instead of waiting. */
const clock = new ManualClock();
before(async () => {
  server = await startTestServer({}, { clock, inProcess: true });
  tenant = await provisionTenant(server.ctx);
});
after(() => server.close());

function kidOf(jwt: string): string {
  return (JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
}

async function jwksOf(at: TestServer): Promise<JSONWebKeySet> {
  const discovery = (await (await at.fetch(`${at.config.issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  const response = await at.fetch(discovery.jwks_uri);
  assert.equal(response.status, 200);
  return (await response.json()) as JSONWebKeySet;
}

async function publishedKids(at: TestServer = server): Promise<string[]> {
  const jwks = (await jwksOf(at)) as unknown as { keys: Record<string, string>[] };
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

  const { kid: newKid } = await rotateSigningKey(server.ctx.db, { activateInSeconds: 1, retainSeconds: 3600, now: clock.now() });
  await server.ctx.keys.reload();
  assert.deepEqual((await publishedKids()).sort(), [newKid, oldKid].sort(), 'published at once');
  assert.equal(kidOf(await renewedIdToken(tokens.refresh_token ?? '')), oldKid, 'but not signing before its activation');

  clock.advance(1100);
  const signedByNew = await renewedIdToken(tokens.refresh_token ?? '');
  assert.equal(kidOf(signedByNew), newKid);
  assert.equal((await configurationWith(server, signedByNew)).status, 200);
  assert.equal((await configurationWith(server, tokens.id_token)).status, 200, 'the old key still verifies');
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 200, 'a refresh token of the old key still works');

  const { kid: immediateKid } = await rotateSigningKey(server.ctx.db, { activateInSeconds: 0, retainSeconds: 3600, now: clock.now() });
  await server.ctx.keys.reload();
  const signedByImmediate = await renewedIdToken(tokens.refresh_token ?? '');
  assert.equal(kidOf(signedByImmediate), immediateKid);
  assert.ok((await publishedKids()).includes(immediateKid));
  for (const token of [tokens.id_token, signedByNew, signedByImmediate]) {
    const response = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
    assert.equal(response.status, 200);
  }
});

async function expectInvalidToken(response: Response): Promise<void> {
  assert.equal(response.status, 401);
  assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
  const body = (await response.json()) as { code?: string; error?: string; detail?: string; error_description?: string };
  assert.equal(body.code ?? body.error, 'invalid_token');
  assert.match(body.detail ?? body.error_description ?? '', /known key/, 'refused for its key, not for anything else');
}

test('a retired key leaves the JWKS once its retention has passed, and tokens it signed are then refused', async () => {
  const own = await startTestServer({}, { inProcess: true });
  try {
    const user = await provisionTenant(own.ctx);
    const tokens = await loginAndExchange(own, user);
    const oldKid = kidOf(tokens.id_token);
    assert.deepEqual(await publishedKids(own), [oldKid]);
    // The token is good while its key is published (checked offline, so the server has not cached it).
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(await jwksOf(own)), { issuer: own.config.issuer });
    assert.equal(payload.sub, user.userId);

    // Retired two hours ago with a one-hour retention: every token it signed (1 h) has expired.
    const { kid: newKid } = await rotateSigningKey(own.ctx.db, { now: Date.now() - 2 * 3600_000, activateInSeconds: 0, retainSeconds: 3600 });
    await own.ctx.keys.reload();
    const published = await publishedKids(own);
    assert.ok(!published.includes(oldKid), 'the retired key is no longer published');
    assert.deepEqual(published, [newKid]);

    await expectInvalidToken(await configurationWith(own, tokens.id_token));
    await expectInvalidToken(await renewAtIdToken(own, tokens.refresh_token ?? ''));
    const next = await loginAndExchange(own, user);
    assert.equal(kidOf(next.id_token), newKid);
    assert.equal((await configurationWith(own, next.id_token)).status, 200, 'the new key signs and verifies');
  } finally {
    await own.close();
  }
});

test('a retired key stays published during its retention and leaves after it, on the next periodic key reload', async () => {
  const ownClock = new ManualClock();
  const own = await startTestServer({ KEY_REFRESH_MS: '200' }, { clock: ownClock, inProcess: true });
  try {
    const user = await provisionTenant(own.ctx);
    const tokens = await loginAndExchange(own, user);
    const oldKid = kidOf(tokens.id_token);
    const { kid: newKid } = await rotateSigningKey(own.ctx.db, { activateInSeconds: 0, retainSeconds: 1, now: ownClock.now() });
    await own.ctx.keys.reload();
    assert.deepEqual((await publishedKids(own)).sort(), [newKid, oldKid].sort(), 'still published during its retention');
    ownClock.advance(1300); // retention (1 s) passed and a periodic reload (every 200 ms) is due; no reload() here
    assert.deepEqual(await publishedKids(own), [newKid]);
    await expectInvalidToken(await configurationWith(own, tokens.id_token));
  } finally {
    await own.close();
  }
});
