// idToken (CONTRACT §2 "idToken"): a new ID token on each call, a renewed refresh token only past
// half its lifetime, the grace period of a superseded token, reuse detection revoking the whole
// login, the absolute chain cap, and the 401 answers for missing, wrong and revoked tokens.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { provisionTenant } from '../support/tenants.ts';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { switchClient } from '../../src/admin/operations.ts';
import { configurationWith, loginAndExchange, postToken, renewAtIdToken } from './helpers.ts';
import { assertRefusedWithin } from '../support/http.ts';
import type { TokenBody } from '../support/login.ts';

const servers: TestServer[] = [];
/** The servers' clock: the tests move it past lifetimes and grace periods instead of waiting. */
const clock = new ManualClock();

async function server(env: Record<string, string> = {}): Promise<TestServer> {
  const started = await startTestServer({ CLOCK_SKEW_SECONDS: '0', ...env }, { clock, inProcess: true });
  servers.push(started);
  return started;
}
after(async () => {
  for (const s of servers) await s.close();
});

async function expectInvalidToken(response: Response, description?: RegExp): Promise<void> {
  assert.equal(response.status, 401);
  assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
  const body = (await response.json()) as { error: string; error_description: string };
  assert.equal(body.error, 'invalid_token');
  if (description) assert.match(body.error_description, description);
}

function claimsOf(jwt: string): Record<string, number | string> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, number | string>;
}

/** Waits until `seconds` after a token's iat: a token's life counts from that whole second. */
/** Moves the clock to `seconds` past the token's iat (never back). */
function pastIat(token: string, seconds: number): void {
  moveTo((Number(claimsOf(token).iat) + seconds) * 1000);
}

function moveTo(instant: number): void {
  clock.set(Math.max(clock.now(), instant));
}

async function refreshRecord(s: TestServer, token: string): Promise<{ issued_at: number; expires_at: number }> {
  return s.ctx.db.selectFrom('refresh_tokens').select(['issued_at', 'expires_at']).where('jti', '=', String(claimsOf(token).jti)).executeTakeFirstOrThrow();
}

test('idToken answers POST and GET with a new ID token and, while the refresh token is young, no new refresh token', async () => {
  const s = await server();
  const tenant = await provisionTenant(s.ctx);
  const tokens = await loginAndExchange(s, tenant);
  for (const method of ['POST', 'GET']) {
    const response = await renewAtIdToken(s, tokens.refresh_token ?? '', method);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const body = (await response.json()) as TokenBody;
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'id_token', 'scope', 'token_type']);
    assert.equal(body.access_token, body.id_token);
    assert.notEqual(claimsOf(body.id_token).jti, claimsOf(tokens.id_token).jti);
    assert.equal(claimsOf(body.id_token).sid, claimsOf(tokens.id_token).sid);
    assert.equal(claimsOf(body.id_token).auth_time, claimsOf(tokens.id_token).auth_time);
    assert.equal((await configurationWith(s, body.id_token)).status, 200);
  }
});

test('no token (or another scheme than Bearer) is 401 with a bare Bearer challenge; junk, an ID token or a revoked grant is invalid_token', async () => {
  const s = await server();
  const tenant = await provisionTenant(s.ctx);
  const tokens = await loginAndExchange(s, tenant);
  for (const headers of [{}, { authorization: 'Basic abc' }]) {
    const none = await s.fetch(`${s.config.issuer}/idToken`, { method: 'POST', headers });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
  }
  await expectInvalidToken(await renewAtIdToken(s, 'not-a-jwt'), /malformed/);
  await expectInvalidToken(await renewAtIdToken(s, tokens.id_token), /not a refresh token/);
  await expectInvalidToken(await s.fetch(`${s.config.issuer}/idToken`, { method: 'POST', headers: { authorization: 'Bearer a b' } }), /empty or malformed/);
  await switchClient(s.ctx.db, tenant.clientId, true);
  await expectInvalidToken(await renewAtIdToken(s, tokens.refresh_token ?? ''), /revoked/);
});

test('a refresh token lives exactly REFRESH_TOKEN_TTL: exp − iat, and its record, from one whole-second iat', async () => {
  const s = await server({ REFRESH_TOKEN_TTL: '4' });
  const tenant = await provisionTenant(s.ctx);
  const issued: string[] = [];
  for (let i = 0; i < 3; i++) issued.push((await loginAndExchange(s, tenant)).refresh_token ?? '');
  const last = issued[2] ?? '';
  pastIat(last, 2.1);
  issued.push(((await (await renewAtIdToken(s, last)).json()) as TokenBody).refresh_token ?? '');
  for (const token of issued) {
    const { iat, exp } = claimsOf(token);
    assert.equal(Number(exp) - Number(iat), 4, `exp − iat of ${token.slice(-8)}`);
    assert.deepEqual({ ...(await refreshRecord(s, token)) }, { issued_at: Number(iat) * 1000, expires_at: Number(exp) * 1000 }, 'the record expires with the JWT');
  }
});

test('past half its lifetime the refresh token is renewed; the old one works during the grace period, after it the whole login is revoked', async () => {
  const s = await server({ REFRESH_TOKEN_TTL: '6', REFRESH_GRACE_SECONDS: '1' });
  const tenant = await provisionTenant(s.ctx);
  const tokens = await loginAndExchange(s, tenant);
  const original = tokens.refresh_token ?? '';

  const young = (await (await renewAtIdToken(s, original)).json()) as TokenBody;
  assert.equal(young.refresh_token, undefined);
  pastIat(original, 3.1);
  const renewal = await renewAtIdToken(s, original);
  assert.equal(renewal.status, 200);
  const renewed = (await renewal.json()) as TokenBody;
  const successor = renewed.refresh_token ?? '';
  assert.ok(successor, 'renewed past half its lifetime');
  assert.equal(claimsOf(successor).sid, claimsOf(original).sid);
  assert.ok(Number(claimsOf(successor).exp) > Number(claimsOf(original).exp));

  const retry = await renewAtIdToken(s, original);
  assert.equal(retry.status, 200, 'the superseded token still works within the grace period');
  const retried = (await retry.json()) as TokenBody;
  assert.equal(claimsOf(retried.refresh_token ?? '').jti, claimsOf(successor).jti, 'a retrying client gets the same successor');

  clock.advance(1200);
  await expectInvalidToken(await renewAtIdToken(s, original), /revoked every token/);
  await expectInvalidToken(await renewAtIdToken(s, successor), /revoked/);
  await assertRefusedWithin(s.baseUrl, renewed.id_token, 5000);
  const audit = await s.ctx.db.selectFrom('audit_log').select(['event', 'outcome']).where('event', '=', 'refresh_token_reuse').execute();
  assert.deepEqual(audit.map((r) => ({ ...r })), [{ event: 'refresh_token_reuse', outcome: 'revoked' }]);
});

test('an expired refresh token is refused', async () => {
  const s = await server({ REFRESH_TOKEN_TTL: '1' });
  const tenant = await provisionTenant(s.ctx);
  const tokens = await loginAndExchange(s, tenant);
  pastIat(tokens.refresh_token ?? '', 1.1);
  await expectInvalidToken(await renewAtIdToken(s, tokens.refresh_token ?? ''), /expired/);
});

test('the chain never outlives REFRESH_CHAIN_MAX_SECONDS from the login', async () => {
  const s = await server({ REFRESH_TOKEN_TTL: '4', REFRESH_CHAIN_MAX_SECONDS: '5', REFRESH_GRACE_SECONDS: '10' });
  const tenant = await provisionTenant(s.ctx);
  const tokens = await loginAndExchange(s, tenant);
  const login = Number(claimsOf(tokens.id_token).auth_time);
  // Renewed 3 s into the first token's life, a successor of 4 s would outlive the 5 s chain.
  pastIat(tokens.refresh_token ?? '', 3.1);
  const first = (await (await renewAtIdToken(s, tokens.refresh_token ?? '')).json()) as TokenBody;
  const successor = first.refresh_token ?? '';
  assert.ok(successor);
  const [grant] = await s.ctx.db.selectFrom('grants').select('chain_expires_at').where('id', '=', String(claimsOf(successor).sid)).execute();
  const record = await refreshRecord(s, successor);
  assert.equal(record.expires_at, grant?.chain_expires_at, 'capped at the chain end, not iat + REFRESH_TOKEN_TTL');
  assert.equal(Math.floor((grant?.chain_expires_at ?? 0) / 1000) - login, 5, 'the chain ends 5 s after the login');
  assert.equal(Number(claimsOf(successor).exp), login + 5, 'its exp is auth_time + the cap, not a second past it');
  moveTo((record.issued_at + record.expires_at) / 2 + 50);
  const second = (await (await renewAtIdToken(s, successor)).json()) as TokenBody;
  assert.equal(second.refresh_token, undefined, 'past half its life, but no successor that would outlive the chain');
  moveTo(record.expires_at + 100);
  await expectInvalidToken(await renewAtIdToken(s, successor), /expired/);
});

test('grant_type=refresh_token at the token endpoint follows the same rules', async () => {
  const s = await server({ REFRESH_TOKEN_TTL: '2', REFRESH_GRACE_SECONDS: '0' });
  const tenant = await provisionTenant(s.ctx);
  await setGrantEnabled(s.ctx.db, tenant.clientId, 'refresh_token', true);
  const tokens = await loginAndExchange(s, tenant);
  const refresh = (token: string) => postToken(s, { grant_type: 'refresh_token', refresh_token: token, client_id: tenant.clientId, client_secret: tenant.clientSecret });
  pastIat(tokens.refresh_token ?? '', 1.1);
  const renewed = (await (await refresh(tokens.refresh_token ?? '')).json()) as TokenBody;
  assert.ok(renewed.refresh_token);
  clock.advance(50);
  const reuse = await refresh(tokens.refresh_token ?? '');
  assert.equal(reuse.status, 400);
  const refused = (await reuse.json()) as { error: string; error_description: string };
  assert.equal(refused.error, 'invalid_grant');
  assert.match(refused.error_description, /revoked every token/);
  await expectInvalidToken(await renewAtIdToken(s, renewed.refresh_token ?? ''), /revoked/);
});
