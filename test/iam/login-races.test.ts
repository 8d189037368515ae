// A login is checked, then its code stored; what ends the login's standing in between (a secret
// reset, the user disabled, the SSO provider removed) must leave no code that can be exchanged, and
// a removal must not trip over an SSO link stored meanwhile. The check is slow on purpose (scrypt),
// so these happen: the security review saw a code from the old secret exchanged after a reset in 3
// rounds of 10. The interleavings are run step by step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { testDialect, TEST_PASSWORD_HASH_COST } from '../support/database.ts';
import { codeExchange, openLoginForm } from '../support/login.ts';
import { authorizeUrl, defaultParams, postToken, submitLogin } from './helpers.ts';
import { verifyApiUser } from '../../src/iam/login.ts';
import { issueAuthorizationCode, type LoginProof } from '../../src/iam/codes.ts';
import { resetUserSecret, setUserDisabled } from '../../src/iam/user-admin.ts';
import { hashUserSecret, useUserSecretCost } from '../../src/iam/secrets.ts';
import { EVERY_ORGANISATION } from '../../src/iam/organisation-scope.ts';
import { OPERATOR } from '../../src/iam/audit.ts';
import { removeSsoProvider, setSsoEnforced } from '../../src/sso/providers.ts';
import { matchApiUser } from '../../src/sso/matching.ts';
import { startIdentityProvider, type IdentityProvider } from '../sso/identity-provider.ts';
import { ssoTenant } from '../sso/fixtures.ts';
import type { Db } from '../../src/platform/db/database.ts';

let server: TestServer;
let idp: IdentityProvider;
before(async () => {
  server = await startTestServer({}, { inProcess: true });
  idp = await startIdentityProvider(`${server.config.authUrl}/oauth/sso/callback`);
});
after(async () => {
  await Promise.all([server.close(), idp.close()]);
});

function storeCode(db: Db, tenant: Tenant, proof: LoginProof, userId = tenant.userId): Promise<string | undefined> {
  return issueAuthorizationCode(db, { clientId: tenant.clientId, userId, redirectUri: tenant.redirectUri, nonce: null, codeChallenge: null, authTime: Date.now(), proof }, 60);
}

async function checkedSecret(tenant: Tenant, secret = tenant.secret): Promise<LoginProof> {
  const verified = await verifyApiUser(server.ctx.db, tenant.clientId, tenant.email, secret);
  assert.ok(verified.ok, 'the secret checks');
  return { secretHash: verified.secretHash };
}

async function exchangeStatus(tenant: Tenant, code: string): Promise<number> {
  return (await postToken(server, codeExchange(tenant, code))).status;
}

async function pendingCodes(userId: string): Promise<number> {
  const rows = await server.ctx.db.selectFrom('authorization_codes').select('code_hash').where('user_id', '=', userId).where('used_at', 'is', null).execute();
  return rows.length;
}

test('a secret reset between the secret check and the code: no code is stored; the new secret\'s login works', async () => {
  const tenant = await provisionTenant(server.ctx, { name: 'Reset Race' });
  const proof = await checkedSecret(tenant);
  const reset = await resetUserSecret(server.ctx.db, EVERY_ORGANISATION, tenant.userId, OPERATOR);
  assert.equal(await storeCode(server.ctx.db, tenant, proof), undefined);
  assert.equal(await pendingCodes(tenant.userId), 0);

  const code = await storeCode(server.ctx.db, tenant, await checkedSecret(tenant, reset.secret));
  assert.ok(code);
  assert.equal(await exchangeStatus(tenant, code), 200);
});

test('the user disabled between the secret check and the code: no code is stored', async () => {
  const tenant = await provisionTenant(server.ctx, { name: 'Disable Race' });
  const proof = await checkedSecret(tenant);
  await setUserDisabled(server.ctx.db, EVERY_ORGANISATION, tenant.userId, true, OPERATOR);
  assert.equal(await storeCode(server.ctx.db, tenant, proof), undefined);
  assert.equal(await pendingCodes(tenant.userId), 0);
});

test('an SSO login whose provider was removed after the callback checked it: no code is stored', async () => {
  const { tenant, providerId, user } = await ssoTenant(server, idp);
  const proof = { federation: { providerId, issuer: idp.issuer } };
  assert.ok(await storeCode(server.ctx.db, tenant, proof, user.userId), 'stored while the provider is there');
  await removeSsoProvider(server.ctx.db, providerId);
  assert.equal(await storeCode(server.ctx.db, tenant, proof, user.userId), undefined);
  assert.equal(await pendingCodes(user.userId), 0, 'the code stored before the removal was voided by it');
});

/** How many statements of this database wait for a lock now (PostgreSQL). */
async function lockWaiters(): Promise<number> {
  const { rows } = await sql<{ waiting: string }>`select count(*) as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(server.ctx.db);
  return Number(rows[0]?.waiting ?? 0);
}

/** Whether a statement of this database waits for a lock now (PostgreSQL). */
async function someoneWaitsForALock(): Promise<boolean> {
  return (await lockWaiters()) > 0;
}

test('PostgreSQL: a reset under way while a code is being stored waits for it, then voids it', { skip: testDialect !== 'postgres' && 'row locks are PostgreSQL\'s; SQLite runs one write at a time' }, async () => {
  const tenant = await provisionTenant(server.ctx, { name: 'Reset Lock' });
  const proof = await checkedSecret(tenant);
  let reset: Promise<unknown> | undefined;
  let resetDone = false;
  const code = await server.ctx.db.transaction().execute(async (trx) => {
    // The code's insert, not yet committed; the reset starts and must wait for it.
    const stored = await storeCode(trx, tenant, proof);
    reset = resetUserSecret(server.ctx.db, EVERY_ORGANISATION, tenant.userId, OPERATOR).finally(() => { resetDone = true; });
    while (!resetDone && !(await someoneWaitsForALock())) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(resetDone, false, 'the reset waited for the code being stored');
    return stored;
  });
  await reset;
  assert.ok(code);
  assert.equal(await pendingCodes(tenant.userId), 0);
  assert.equal(await exchangeStatus(tenant, code), 400);
});

test('PostgreSQL: a provider removal under way while an SSO login stores its link waits for it, then deletes the link', { skip: testDialect !== 'postgres' && 'row locks are PostgreSQL\'s; SQLite runs one write at a time' }, async () => {
  const { tenant, providerId, domain, user } = await ssoTenant(server, idp);
  const identity = { subject: user.sub, email: user.email, emailVerified: true, hostedDomain: undefined };
  let removal: Promise<unknown> | undefined;
  let removalDone = false;
  const match = await server.ctx.db.transaction().execute(async (trx) => {
    // The link's insert, not yet committed; the removal starts and must wait for it (before, it
    // deleted the links it saw, then failed on the foreign key of this one).
    const linked = await matchApiUser(trx, tenant.clientId, { id: providerId, issuer: idp.issuer, domains: [domain] }, identity);
    removal = removeSsoProvider(server.ctx.db, providerId).finally(() => { removalDone = true; });
    while (!removalDone && !(await someoneWaitsForALock())) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(removalDone, false, 'the removal waited for the link being stored');
    return linked;
  });
  assert.deepEqual(match, { ok: true, userId: user.userId, linked: true });
  await removal;
  assert.equal(await server.ctx.db.selectFrom('sso_links').select('user_id').where('user_id', '=', user.userId).executeTakeFirst(), undefined, 'the removal deleted the link');
  assert.equal(await server.ctx.db.selectFrom('sso_providers').select('id').where('id', '=', providerId).executeTakeFirst(), undefined);
});

test('PostgreSQL: a secret login\'s code exchanged while SSO enforcement is being turned on waits for it, then is refused; no secret-login grant stays live', { skip: testDialect !== 'postgres' && 'row locks are PostgreSQL\'s; SQLite runs one write at a time, the exchange reading the settings inside its own' }, async () => {
  const tenant = await provisionTenant(server.ctx, { name: 'Enforcement Race' });
  const earlier = await storeCode(server.ctx.db, tenant, await checkedSecret(tenant));
  assert.ok(earlier);
  assert.equal(await exchangeStatus(tenant, earlier), 200, 'an earlier secret login, whose grant the enforcement revokes');
  const code = await storeCode(server.ctx.db, tenant, await checkedSecret(tenant));
  assert.ok(code);
  let enforcing: Promise<unknown> | undefined;
  let exchanged: Promise<number> | undefined;
  let exchangeDone = false;
  let exchangeWaited = false;
  const settle = async (done: () => boolean | Promise<boolean>) => {
    for (let tries = 0; tries < 1000 && !(await done()); tries++) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  await server.ctx.db.transaction().execute(async (trx) => {
    // The earlier grant's row, locked here: the enforcement under way stops at its revocation, after
    // its settings write (before the fix, with nothing that orders an exchange against it). The
    // exchange runs then; before the fix it read enforcement off, committed a live grant, and the
    // revocation's statement, begun before that commit, never saw it.
    await trx.selectFrom('grants').select('id').where('user_id', '=', tenant.userId).forUpdate().execute();
    enforcing = setSsoEnforced(server.ctx.db, tenant.organisationId, true);
    await settle(async () => (await lockWaiters()) >= 1);
    exchanged = exchangeStatus(tenant, code).finally(() => { exchangeDone = true; });
    await settle(async () => exchangeDone || (await lockWaiters()) >= 2);
    exchangeWaited = !exchangeDone;
  });
  await enforcing;
  assert.equal(await exchanged, 400, 'the exchange is refused: it read enforcement on');
  const live = await server.ctx.db.selectFrom('grants').select('id').where('user_id', '=', tenant.userId).where('revoked_at', 'is', null).execute();
  assert.deepEqual(live, [], 'no secret-login grant stays live');
  assert.ok(exchangeWaited, 'the exchange waited for the enforcement');
});

test('over HTTP: a login whose secret is reset while it is checked is refused like a wrong secret, or its code is void', async () => {
  // The stored hash costs 2^14 to check, the reset's new one the tests' 2^10: the reset lands
  // inside the login's check (seen in every round here, audited `secret_changed`). Whatever the
  // order, no code may outlive the reset.
  useUserSecretCost(14);
  const slowHash = await hashUserSecret('slow-to-check-secret');
  useUserSecretCost(Number(TEST_PASSWORD_HASH_COST));
  for (let round = 0; round < 3; round++) {
    const tenant = await provisionTenant(server.ctx, { name: `Reset Over HTTP ${round}` });
    await server.ctx.db.updateTable('api_users').set({ secret_hash: slowHash }).where('id', '=', tenant.userId).execute();
    const form = await openLoginForm(authorizeUrl(server, defaultParams(tenant)));
    const login = submitLogin(server, form, { email: tenant.email, secret: 'slow-to-check-secret' });
    await resetUserSecret(server.ctx.db, EVERY_ORGANISATION, tenant.userId, OPERATOR);
    const response = await login;
    if (response.status === 302) {
      const code = new URL(response.headers.get('location') ?? '').searchParams.get('code') ?? '';
      assert.equal(await exchangeStatus(tenant, code), 400, `round ${round}: a code of the old secret was exchanged after the reset`);
      continue;
    }
    assert.equal(response.status, 401);
    assert.match(await response.text(), /The email or secret is not correct\./);
    const audit = await server.ctx.db.selectFrom('audit_log').select('detail').where('event', '=', 'login').where('user_id', '=', tenant.userId).executeTakeFirstOrThrow();
    assert.ok(audit.detail === 'secret_changed' || audit.detail === 'wrong_secret', String(audit.detail));
  }
});
