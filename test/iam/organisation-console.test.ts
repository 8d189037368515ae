// The identity operations a console user runs for its own organisation (CONTRACT §6): reads and
// changes of companies, API Clients and API Users, each scoped to the organisation passed in (an id
// of another organisation is "not found", exactly like an unknown id) and each change audited with
// the console user as actor and the organisation on the row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { assertRefusedWithin } from '../support/http.ts';
import { codeExchange } from '../support/login.ts';
import { createClient, createUser } from '../../src/iam/provisioning.ts';
import { setClientDisabled, updateRedirectUris } from '../../src/iam/client-admin.ts';
import { resetUserSecret, revokeUserSessions, setUserDisabled } from '../../src/iam/user-admin.ts';
import { getClient, listClients, listUsers } from '../../src/iam/organisation-reads.ts';
import { companiesOf } from '../../src/tenancy/companies.ts';
import type { Actor } from '../../src/iam/audit.ts';
import { configurationWith, loginAndExchange, loginForCode, postToken, renewAtIdToken } from './helpers.ts';

const server = useTestServer({}, { inProcess: true });
const admin: Actor = { kind: 'console_user', id: 'cu_admin', email: 'admin@customer.example' };

async function twoOrganisations(): Promise<{ mine: Tenant; theirs: Tenant }> {
  return { mine: await provisionTenant(server.ctx, { name: 'Mine' }), theirs: await provisionTenant(server.ctx, { name: 'Theirs' }) };
}

test('a console user creates a client and its user in its organisation, and reads them back without secrets', async () => {
  const { mine } = await twoOrganisations();
  const { db } = server.ctx;
  const created = await createClient(db, mine.organisationId, { companyId: mine.companyId, name: ' Payroll sync ', redirectUris: ['https://payroll.example.com/cb', 'http://127.0.0.1/cb'] }, admin);
  const user = await createUser(db, mine.organisationId, { clientId: created.clientId, email: ' Ops@Payroll.Example.com ' }, admin);
  assert.equal(user.email, 'ops@payroll.example.com');

  assert.deepEqual((await companiesOf(db, mine.organisationId)).map((c) => [c.id, c.name, c.timezone]), [[mine.companyId, 'Mine', 'Europe/Amsterdam']]);
  assert.deepEqual((await listClients(db, mine.organisationId, mine.companyId)).map((c) => [c.id, c.name]).sort(), [[created.clientId, 'Payroll sync'], [mine.clientId, 'Test client']].sort());
  const detail = await getClient(db, mine.organisationId, created.clientId);
  assert.deepEqual({ ...detail, createdAt: typeof detail.createdAt }, {
    id: created.clientId, companyId: mine.companyId, name: 'Payroll sync', grants: ['authorization_code'], disabled: false, createdAt: 'string',
    redirectUris: ['https://payroll.example.com/cb', 'http://127.0.0.1/cb'], previousSecretExpiresAt: null, grantRequests: [],
  });
  assert.deepEqual((await listUsers(db, mine.organisationId, created.clientId)).map((u) => [u.id, u.email, u.disabled]), [[user.userId, 'ops@payroll.example.com', false]]);

  // The new client and user work for real: login, code, token, API call.
  const tenant: Tenant = { ...mine, clientId: created.clientId, clientSecret: created.clientSecret, userId: user.userId, email: user.email, secret: user.secret, redirectUri: 'https://payroll.example.com/cb' };
  const tokens = await loginAndExchange(server, tenant);
  assert.equal((await configurationWith(server, tokens.id_token)).status, 200);

  const audit = await db.selectFrom('audit_log').selectAll().where('organisation_id', '=', mine.organisationId).where('event', '=', 'console_change').orderBy('at').orderBy('id').execute();
  assert.deepEqual(audit.map((r) => [r.detail, r.client_id, r.user_id, r.actor_kind, r.actor_id, r.actor_email]).sort(), [
    ['client_created', created.clientId, null, 'console_user', 'cu_admin', 'admin@customer.example'],
    ['user_created', created.clientId, user.userId, 'console_user', 'cu_admin', 'admin@customer.example'],
  ]);
  assert.ok(!JSON.stringify(audit).includes(created.clientSecret) && !JSON.stringify(audit).includes(user.secret), 'no secret in the audit log');
});

test('every id of another organisation is not found, and nothing of it changes', async () => {
  const { mine, theirs } = await twoOrganisations();
  const { db } = server.ctx;
  const org = mine.organisationId;
  const attempts: [string, () => Promise<unknown>][] = [
    ['listClients', () => listClients(db, org, theirs.companyId)],
    ['getClient', () => getClient(db, org, theirs.clientId)],
    ['listUsers', () => listUsers(db, org, theirs.clientId)],
    ['createClient', () => createClient(db, org, { companyId: theirs.companyId, name: 'x', redirectUris: ['https://x.example/cb'] }, admin)],
    ['createUser', () => createUser(db, org, { clientId: theirs.clientId, email: 'x@example.com' }, admin)],
    ['updateRedirectUris', () => updateRedirectUris(db, org, theirs.clientId, ['https://evil.example/cb'], admin)],
    ['setClientDisabled', () => setClientDisabled(db, org, theirs.clientId, true, admin)],
    ['setUserDisabled', () => setUserDisabled(db, org, theirs.userId, true, admin)],
    ['resetUserSecret', () => resetUserSecret(db, org, theirs.userId, admin)],
    ['revokeUserSessions', () => revokeUserSessions(db, org, theirs.userId, admin)],
  ];
  for (const [name, attempt] of attempts) await assert.rejects(attempt(), { status: 404, code: 'not_found' }, name);
  assert.deepEqual(await companiesOf(db, org), [{ id: mine.companyId, name: 'Mine', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' }]);
  const untouched = await getClient(db, theirs.organisationId, theirs.clientId);
  assert.deepEqual([untouched.disabled, untouched.redirectUris], [false, [theirs.redirectUri]]);
  assert.equal((await loginAndExchange(server, theirs)).token_type, 'Bearer', 'their user still logs in with its secret');
});

test('a console user registers https redirect URIs, or http on a loopback host only; exact lists replace the old one', async () => {
  const { mine } = await twoOrganisations();
  const { db } = server.ctx;
  for (const bad of ['http://app.example.com/cb', 'ftp://app.example.com/cb', 'https://app.example.com/cb#frag', 'not a uri']) {
    await assert.rejects(updateRedirectUris(db, mine.organisationId, mine.clientId, ['https://ok.example/cb', bad], admin), (error: { status: number; errors: { path: string }[] }) => {
      assert.equal(error.status, 400);
      assert.deepEqual(error.errors.map((e) => e.path), ['/redirectUris/1'], bad);
      return true;
    });
  }
  await assert.rejects(updateRedirectUris(db, mine.organisationId, mine.clientId, [], admin), { status: 400 });
  const updated = await updateRedirectUris(db, mine.organisationId, mine.clientId, ['https://new.example/cb', 'http://localhost/cb', 'http://[::1]/cb'], admin);
  assert.deepEqual(updated.redirectUris, ['https://new.example/cb', 'http://localhost/cb', 'http://[::1]/cb']);
  const refused = await server.fetch(`${server.config.authUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', scope: 'all', client_id: mine.clientId, redirect_uri: mine.redirectUri, state: 's' }).toString()}`);
  assert.equal(refused.status, 400, 'the old redirect URI is no longer registered');
  const location = await loginForCode(server, { ...mine, redirectUri: 'https://new.example/cb' });
  assert.equal(location.origin, 'https://new.example');
});

test('resetting a user secret shows a new one, stops the old one and revokes the user\'s tokens within 5 s', async () => {
  const { mine } = await twoOrganisations();
  const tokens = await loginAndExchange(server, mine);
  const reset = await resetUserSecret(server.ctx.db, mine.organisationId, mine.userId, admin);
  assert.equal(reset.email, mine.email);
  assert.notEqual(reset.secret, mine.secret);
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 401, 'the refresh token fails at once');
  await assertRefusedWithin(server.baseUrl, tokens.id_token, 5000);
  await assert.rejects(loginForCode(server, mine), /401/, 'the old secret no longer logs in');
  const code = (await loginForCode(server, { ...mine, secret: reset.secret })).searchParams.get('code') ?? '';
  assert.equal((await postToken(server, codeExchange(mine, code))).status, 200, 'the new secret does');
});

test('revoking a user\'s sessions ends its tokens but not its secret; disabling and enabling a user and a client', async () => {
  const { mine } = await twoOrganisations();
  const { db } = server.ctx;
  const tokens = await loginAndExchange(server, mine);
  const revoked = await revokeUserSessions(db, mine.organisationId, mine.userId, admin);
  assert.equal(revoked.revokedGrants.length, 1);
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 401);
  await assertRefusedWithin(server.baseUrl, tokens.id_token, 5000);
  await loginAndExchange(server, mine);

  await setUserDisabled(db, mine.organisationId, mine.userId, true, admin);
  assert.deepEqual((await listUsers(db, mine.organisationId, mine.clientId)).map((u) => u.disabled), [true]);
  await assert.rejects(loginForCode(server, mine), /401/);
  await setUserDisabled(db, mine.organisationId, mine.userId, false, admin);
  await setClientDisabled(db, mine.organisationId, mine.clientId, true, admin);
  assert.equal((await getClient(db, mine.organisationId, mine.clientId)).disabled, true);
  await setClientDisabled(db, mine.organisationId, mine.clientId, false, admin);
  await loginAndExchange(server, mine);

  const details = await db.selectFrom('audit_log').select('detail').where('organisation_id', '=', mine.organisationId).where('event', '=', 'console_change').orderBy('at').orderBy('id').execute();
  // Changes made within one millisecond have no order between them: compare the set.
  assert.deepEqual(details.map((r) => r.detail).sort(), ['client_disabled', 'client_enabled', 'user_disabled', 'user_enabled', 'user_sessions_revoked']);
});
