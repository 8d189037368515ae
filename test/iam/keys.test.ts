// Signing-key rotation (contract: identity and access, "Keys"): a new key is published in the JWKS before it signs,
// tokens signed by the previous key keep verifying after the switch, and a retired key leaves the JWKS
// (and stops verifying) once its retention, the lifetime of every token it signed, has passed. A leaked
// key is withdrawn instead (`wfs withdraw-signing-key`): out of the JWKS at once, its tokens refused by
// every instance within the key-ring reload, and a new key signing in its place.
// Private keys are stored sealed with SECRETS_KEY (docs/security.md): keys stored in clear by an earlier
// release are sealed at start-up, and a SECRETS_KEY that does not open them stops start-up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { freePort, startTestServer, type TestServer } from '../support/server.ts';
import { migratedDatabase } from '../support/database.ts';
import { createDatabase } from '../../src/platform/db/database.ts';
import { freePorts, runServerToEnd, runWfsJson, startCluster } from '../support/processes.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { bearer, mintTokens, provisionTenant, type Tenant } from '../support/tenants.ts';
import { rotateSigningKey, signingKeyContext, withdrawSigningKey, type RotationOptions } from '../../src/iam/keys.ts';
import { closeContext, createContext } from '../../src/app/bootstrap.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { api, eventually, exchangeCode, logIn, renew, tokens as tokensOf } from '../multi-instance/client.ts';
import { SecretBox, secretBox } from '../../src/platform/sealed-secrets.ts';
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

/** Rotates as the operator does, with the server's secret box (the new private key is stored sealed). */
async function rotate(at: TestServer, options: RotationOptions): Promise<{ kid: string; activatesAt: number }> {
  return rotateSigningKey(at.ctx.db, await secretBox(at.ctx.db, at.config), options);
}

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

  const { kid: newKid } = await rotate(server, { activateInSeconds: 1, retainSeconds: 3600, now: clock.now() });
  await server.ctx.keys.reload();
  assert.deepEqual((await publishedKids()).sort(), [newKid, oldKid].sort(), 'published at once');
  assert.equal(kidOf(await renewedIdToken(tokens.refresh_token ?? '')), oldKid, 'but not signing before its activation');

  clock.advance(1100);
  const signedByNew = await renewedIdToken(tokens.refresh_token ?? '');
  assert.equal(kidOf(signedByNew), newKid);
  assert.equal((await configurationWith(server, signedByNew)).status, 200);
  assert.equal((await configurationWith(server, tokens.id_token)).status, 200, 'the old key still verifies');
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 200, 'a refresh token of the old key still works');

  const { kid: immediateKid } = await rotate(server, { activateInSeconds: 0, retainSeconds: 3600, now: clock.now() });
  await server.ctx.keys.reload();
  const signedByImmediate = await renewedIdToken(tokens.refresh_token ?? '');
  assert.equal(kidOf(signedByImmediate), immediateKid);
  assert.ok((await publishedKids()).includes(immediateKid));
  for (const token of [tokens.id_token, signedByNew, signedByImmediate]) {
    const response = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
    assert.equal(response.status, 200);
  }
});

test('a key rotated elsewhere (wfs, another instance) is in the JWKS at once, though this instance\'s key ring has not reloaded', async () => {
  const before = await publishedKids();
  const { kid } = await rotate(server, { activateInSeconds: 120, retainSeconds: 3600, now: clock.now() });
  assert.deepEqual((await publishedKids()).sort(), [...before, kid].sort());
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
    const { kid: newKid } = await rotate(own, { now: Date.now() - 2 * 3600_000, activateInSeconds: 0, retainSeconds: 3600 });
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
    const { kid: newKid } = await rotate(own, { activateInSeconds: 0, retainSeconds: 1, now: ownClock.now() });
    await own.ctx.keys.reload();
    assert.deepEqual((await publishedKids(own)).sort(), [newKid, oldKid].sort(), 'still published during its retention');
    ownClock.advance(1300); // retention (1 s) passed and a periodic reload (every 200 ms) is due; no reload() here
    assert.deepEqual(await publishedKids(own), [newKid]);
    await expectInvalidToken(await configurationWith(own, tokens.id_token));
  } finally {
    await own.close();
  }
});

async function privateJwkRow(at: TestServer, kid: string): Promise<string> {
  const row = await at.ctx.db.selectFrom('signing_keys').select('private_jwk').where('kid', '=', kid).executeTakeFirstOrThrow();
  return row.private_jwk;
}

test('a private key is stored sealed with the secret box, bound to its kid: the row holds no key in clear', async () => {
  const { kid } = await rotate(server, { activateInSeconds: 120, retainSeconds: 3600, now: clock.now() });
  const box = await secretBox(server.ctx.db, server.config);
  const rows = await server.ctx.db.selectFrom('signing_keys').select(['kid', 'private_jwk']).execute();
  assert.ok(rows.some((row) => row.kid === kid) && rows.length > 1, 'the first key and the rotated one');
  for (const row of rows) {
    assert.match(row.private_jwk, /^v2\./);
    assert.doesNotMatch(row.private_jwk, /"d"/);
    const jwk = JSON.parse(box.open(row.private_jwk, signingKeyContext(row.kid))) as Record<string, string>;
    assert.equal(jwk.kid, row.kid);
    assert.ok(jwk.d, 'the sealed value is the private JWK');
  }
  const rotated = await privateJwkRow(server, kid);
  const other = rows.find((row) => row.kid !== kid);
  assert.throws(() => box.open(rotated, signingKeyContext(other?.kid ?? '')), /does not open/, "moved to another key's row, it does not open");

  // An operator's shell without the servers' SECRETS_KEY: the key it would seal would stop every instance.
  await assert.rejects(rotateSigningKey(server.ctx.db, new SecretBox(randomBytes(32)), { activateInSeconds: 120, retainSeconds: 3600 }), /Signing key key_\S+ cannot be unsealed/);
  assert.equal((await server.ctx.db.selectFrom('signing_keys').select('kid').execute()).length, rows.length, 'nothing written');
});

test('a key stored in clear by an earlier release is sealed at start-up (two instances at once), and tokens it signed still verify', async () => {
  const database = await migratedDatabase();
  const ports = await freePorts(2);
  // The instances share the service's address (and so the issuer), as behind one load balancer.
  const env = { DATABASE_URL: database.url, SECRETS_KEY: randomBytes(32).toString('base64'), BASE_URL: `http://127.0.0.1:${ports[0]}` };
  try {
    const earlier = await startTestServer(env, { inProcess: true });
    let tokens: TokenBody;
    let kid: string;
    try {
      tokens = await loginAndExchange(earlier, await provisionTenant(earlier.ctx));
      kid = kidOf(tokens.id_token);
      // The row as the earlier release wrote it: the private JWK itself.
      const box = await secretBox(earlier.ctx.db, earlier.config);
      const plain = box.open(await privateJwkRow(earlier, kid), signingKeyContext(kid));
      await earlier.ctx.db.updateTable('signing_keys').set({ private_jwk: plain }).where('kid', '=', kid).execute();
    } finally {
      await earlier.close();
    }
    const cluster = await startCluster(ports, env);
    try {
      const db = createDatabase(database.url);
      const row = await db.selectFrom('signing_keys').select('private_jwk').where('kid', '=', kid).executeTakeFirstOrThrow();
      await db.destroy();
      assert.match(row.private_jwk, /^v2\./);
      assert.doesNotMatch(row.private_jwk, /"d"/);
      for (const instance of cluster.instances) {
        const response = await fetch(`${instance.url}/api/v1/company/configuration`, { headers: bearer(tokens.id_token) });
        assert.equal(response.status, 200, 'a token signed before verifies');
      }
      const renewed = await fetch(`${cluster.baseUrl}/api/v1/iam/idToken`, { method: 'POST', headers: bearer(tokens.refresh_token ?? '') });
      assert.equal(renewed.status, 200);
      assert.equal(kidOf(((await renewed.json()) as TokenBody).id_token), kid, 'and the key still signs');
    } finally {
      await cluster.stop();
    }
  } finally {
    await database.drop();
  }
});

test('a SECRETS_KEY that does not open the signing keys stops start-up with a message naming the key; no fallback', async () => {
  const database = await migratedDatabase();
  try {
    const sealing = await startTestServer({ DATABASE_URL: database.url, SECRETS_KEY: randomBytes(32).toString('base64') }, { inProcess: true });
    const [kid] = await publishedKids(sealing);
    await sealing.close();
    // Another SECRETS_KEY, or none (the development key the database would then make and use).
    const wrongKeys: Array<Record<string, string>> = [{ SECRETS_KEY: randomBytes(32).toString('base64') }, {}];
    for (const wrong of wrongKeys) {
      const run = await runServerToEnd({ DATABASE_URL: database.url, PORT: String(await freePort()), ...wrong });
      assert.notEqual(run.code, 0, run.stdout);
      assert.match(run.stderr, new RegExp(`Signing key ${kid} cannot be unsealed: .*neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`));
      assert.doesNotMatch(run.stdout, /Listening/);
    }
  } finally {
    await database.drop();
  }
});

/** A withdrawn key's token, refused as one signed by no known key (not for its expiry or anything else). */
async function expectUnknownKey(response: Response, what: string): Promise<void> {
  const text = await response.text();
  assert.equal(response.status, 401, `${what}: ${text}`);
  assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/, what);
  const body = JSON.parse(text) as { code?: string; error?: string; detail?: string; error_description?: string };
  assert.equal(body.code ?? body.error, 'invalid_token', what);
  assert.match(body.detail ?? body.error_description ?? '', /not signed by a known key/, what);
}

test('a withdrawn key leaves the JWKS at once; both instances refuse its tokens within the key-ring reload, cached ones too; its refresh tokens stop renewing; the new key signs', async () => {
  const KEY_REFRESH_MS = 1000;
  const database = await migratedDatabase();
  const ports = await freePorts(2);
  const env = { DATABASE_URL: database.url, BASE_URL: `http://127.0.0.1:${ports[0]}`, KEY_REFRESH_MS: String(KEY_REFRESH_MS) };
  const handle = await createContext(loadConfig(env), { poll: false });
  const cluster = await startCluster(ports, env);
  try {
    const user = await provisionTenant(handle);
    const leakedTokens = await mintTokens(handle, user);
    const leaked = kidOf(leakedTokens.id_token);
    const urls = cluster.instances.map((instance) => instance.url);
    // Verified, and so cached, on each instance before the leak is known.
    for (const url of urls) assert.equal((await api(url, leakedTokens.id_token, '/api/v1/company/configuration')).status, 200);

    const withdrawal = await runWfsJson(['withdraw-signing-key', '--kid', leaked], env);
    const withdrawnAt = Date.now();
    assert.equal(withdrawal.code, 0, withdrawal.stdout + withdrawal.stderr);
    const result = withdrawal.json as { kid: string; withdrawnAt: string; replacement: { kid: string; activatesAt: string } | null };
    assert.deepEqual(Object.keys(result).sort(), ['kid', 'replacement', 'withdrawnAt']);
    assert.equal(result.kid, leaked);
    const replacement = result.replacement ?? assert.fail('the only key was withdrawn: a replacement signs at once');
    assert.ok(Date.parse(replacement.activatesAt) <= withdrawnAt, 'the replacement signs from now');

    const jwks = async (url: string) => ((await (await fetch(`${url}/api/v1/iam/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
    for (const url of urls) assert.deepEqual(await jwks(url), [replacement.kid], `${url} no longer publishes the withdrawn key`);

    for (const url of urls) {
      await eventually(`${url} refuses the cached token of the withdrawn key`, 10_000, async () => (await api(url, leakedTokens.id_token, '/api/v1/company/configuration')).status === 401, 50);
      const tookMs = Date.now() - withdrawnAt;
      assert.ok(tookMs <= KEY_REFRESH_MS + 1000, `${url} refused it ${tookMs} ms after the withdrawal (key ring reloaded every ${KEY_REFRESH_MS} ms)`);
      await expectUnknownKey(await api(url, leakedTokens.id_token, '/api/v1/company/configuration'), `${url}, the cached token`);
      await expectUnknownKey(await renew(url, leakedTokens.refresh_token ?? ''), `${url}, its refresh token`);
    }

    // The holder signs in again, on the second instance: the replacement signs and both verify it.
    const [first = '', second = ''] = urls;
    const code = (await logIn(second, second, user)).searchParams.get('code') ?? '';
    const fresh = await tokensOf(await exchangeCode(second, user, code));
    assert.equal(kidOf(fresh.id_token), replacement.kid);
    assert.equal(kidOf(fresh.refresh_token ?? ''), replacement.kid);
    for (const url of [first, second]) assert.equal((await api(url, fresh.id_token, '/api/v1/company/configuration')).status, 200);
  } finally {
    await cluster.stop();
    await closeContext(handle);
    await database.drop();
  }
});

async function keyRow(at: TestServer, kid: string) {
  return at.ctx.db.selectFrom('signing_keys').select(['activates_at', 'retired_at', 'unpublish_at']).where('kid', '=', kid).executeTakeFirstOrThrow();
}

test('withdrawing a key that does not sign (retired, or scheduled) creates none; a scheduled one leaves the signing key in charge, published for good', async () => {
  const ownClock = new ManualClock();
  const own = await startTestServer({}, { clock: ownClock, inProcess: true });
  try {
    const box = await secretBox(own.ctx.db, own.config);
    const user = await provisionTenant(own.ctx);
    const old = await loginAndExchange(own, user);
    ownClock.advance(1000);
    const { kid: signing } = await rotate(own, { activateInSeconds: 0, retainSeconds: 3600, now: ownClock.now() });
    const { kid: scheduled } = await rotate(own, { activateInSeconds: 120, retainSeconds: 3600, now: ownClock.now() });
    assert.equal((await keyRow(own, signing)).retired_at, ownClock.now() + 120_000, 'to retire when the scheduled key activates');

    const retired = await withdrawSigningKey(own.ctx.db, box, kidOf(old.id_token), { retainSeconds: 3600, now: ownClock.now() });
    assert.equal(retired.replacement, null);
    const early = await withdrawSigningKey(own.ctx.db, box, scheduled, { retainSeconds: 3600, now: ownClock.now() });
    assert.equal(early.replacement, null);
    assert.deepEqual({ ...(await keyRow(own, signing)) }, { activates_at: ownClock.now(), retired_at: null, unpublish_at: null }, 'the signing key no longer retires');

    await own.ctx.keys.reload();
    assert.deepEqual(await publishedKids(own), [signing]);
    await expectUnknownKey(await configurationWith(own, old.id_token), 'a token of the retired key');
    ownClock.advance(200_000);
    const next = await loginAndExchange(own, user);
    assert.equal(kidOf(next.id_token), signing, 'still signing after the withdrawn key would have activated');
    await assert.rejects(withdrawSigningKey(own.ctx.db, box, scheduled, { retainSeconds: 3600, now: ownClock.now() }), /No published signing key/);
  } finally {
    await own.close();
  }
});
