// Client secret rotation with overlap (CONTRACT §6): a planned rotation leaves the old secret working
// beside the new one until its expiry — at the token endpoint, the revocation endpoint and through
// HTTP Basic — and revokes nothing; ending the overlap stops the old secret at once; the operator's
// immediate rotation still revokes every grant. Time moves on a ManualClock, never by sleeping.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { mintTokens, provisionTenant, type Tenant } from '../support/tenants.ts';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { endSecretOverlap, rotateClientSecret, rotateClientSecretWithOverlap } from '../../src/iam/client-admin.ts';
import { getClient } from '../../src/iam/organisation-reads.ts';
import { OPERATOR, type Actor } from '../../src/iam/audit.ts';
import { configurationWith, postToken } from './helpers.ts';

const clock = new ManualClock();
let server: TestServer;
before(async () => {
  server = await startTestServer({}, { clock, inProcess: true });
});
after(() => server.close());

const admin: Actor = { kind: 'console_user', id: 'cu_test', email: 'admin@example.com' };

async function machineClient(): Promise<Tenant> {
  const tenant = await provisionTenant(server.ctx);
  await setGrantEnabled(server.ctx.db, tenant.clientId, 'client_credentials', true);
  return tenant;
}

function withBody(clientId: string, secret: string): Promise<Response> {
  return postToken(server, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret });
}

function withBasic(clientId: string, secret: string): Promise<Response> {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64');
  return postToken(server, { grant_type: 'client_credentials' }, { form: true, headers: { authorization: `Basic ${basic}` } });
}

function revokeWith(clientId: string, secret: string, token: string): Promise<Response> {
  return server.fetch(`${server.config.issuer}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, client_id: clientId, client_secret: secret }) });
}

async function assertAccepted(clientId: string, secret: string, what: string): Promise<void> {
  assert.equal((await withBody(clientId, secret)).status, 200, `${what}: client_secret in the body`);
  assert.equal((await withBasic(clientId, secret)).status, 200, `${what}: HTTP Basic`);
}

async function assertRefused(clientId: string, secret: string, what: string): Promise<void> {
  for (const response of [await withBody(clientId, secret), await withBasic(clientId, secret)]) {
    assert.equal(response.status, 401, what);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_client', what);
  }
}

test('during the overlap both secrets work everywhere, and no grant is revoked; after it only the new one', async () => {
  clock.set(Date.now());
  const tenant = await machineClient();
  const before = await mintTokens(server.ctx, tenant);
  const rotated = await rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId, overlapSeconds: 3600 }, OPERATOR, clock.now());
  assert.equal(rotated.previousSecretExpiresAt, new Date(clock.now() + 3600_000).toISOString());
  assert.notEqual(rotated.clientSecret, tenant.clientSecret);

  await assertAccepted(tenant.clientId, tenant.clientSecret, 'the old secret during the overlap');
  await assertAccepted(tenant.clientId, rotated.clientSecret, 'the new secret');
  assert.equal((await configurationWith(server, before.id_token)).status, 200, 'tokens issued before the rotation still work');
  assert.equal((await revokeWith(tenant.clientId, tenant.clientSecret, 'unknown-token')).status, 200, 'the revocation endpoint accepts the old secret');

  clock.advance(3599_000);
  await assertAccepted(tenant.clientId, tenant.clientSecret, 'the old secret one second before its expiry');
  clock.advance(1000);
  await assertRefused(tenant.clientId, tenant.clientSecret, 'the old secret at its expiry');
  assert.equal((await revokeWith(tenant.clientId, tenant.clientSecret, 'unknown-token')).status, 401, 'and at the revocation endpoint');
  await assertAccepted(tenant.clientId, rotated.clientSecret, 'the new secret after the overlap');
});

test('the default overlap is 24 hours; the client detail shows it until it ends', async () => {
  clock.set(Date.now());
  const tenant = await machineClient();
  const rotated = await rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId }, OPERATOR, clock.now());
  assert.equal(Date.parse(rotated.previousSecretExpiresAt) - clock.now(), 24 * 3600_000);
  const detail = await getClient(server.ctx.db, tenant.organisationId, tenant.clientId, clock.now());
  assert.equal(detail.previousSecretExpiresAt, rotated.previousSecretExpiresAt);
  assert.equal((await getClient(server.ctx.db, tenant.organisationId, tenant.clientId, clock.now() + 24 * 3600_000)).previousSecretExpiresAt, null);
});

test('ending the overlap early stops the old secret at once; the new one keeps working', async () => {
  clock.set(Date.now());
  const tenant = await machineClient();
  const rotated = await rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId, overlapSeconds: 7 * 24 * 3600, organisationId: tenant.organisationId }, admin, clock.now());
  await assertAccepted(tenant.clientId, tenant.clientSecret, 'the old secret before the overlap ends');
  assert.deepEqual(await endSecretOverlap(server.ctx.db, tenant.clientId, admin, tenant.organisationId, clock.now()), { clientId: tenant.clientId, previousSecretExpiresAt: null });
  await assertRefused(tenant.clientId, tenant.clientSecret, 'the old secret after the overlap was ended');
  await assertAccepted(tenant.clientId, rotated.clientSecret, 'the new secret');
  assert.equal((await getClient(server.ctx.db, tenant.organisationId, tenant.clientId, clock.now())).previousSecretExpiresAt, null);

  const audit = await server.ctx.db.selectFrom('audit_log').selectAll().where('client_id', '=', tenant.clientId).where('event', '=', 'console_change').orderBy('at').execute();
  assert.deepEqual(audit.map((r) => [r.detail, r.actor_kind, r.actor_id, r.actor_email, r.organisation_id]).sort(), [
    ['client_secret_overlap_ended', 'console_user', 'cu_test', 'admin@example.com', tenant.organisationId],
    ['client_secret_rotated_with_overlap', 'console_user', 'cu_test', 'admin@example.com', tenant.organisationId],
  ]);
  for (const secret of [tenant.clientSecret, rotated.clientSecret]) assert.ok(!JSON.stringify(audit).includes(secret), 'no secret in the audit log');
});

test('a client has at most two live secrets: rotating again during an overlap retires the oldest at once', async () => {
  clock.set(Date.now());
  const tenant = await machineClient();
  const second = await rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId, overlapSeconds: 3600 }, OPERATOR, clock.now());
  const third = await rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId, overlapSeconds: 3600 }, OPERATOR, clock.now());
  await assertRefused(tenant.clientId, tenant.clientSecret, 'the first secret');
  await assertAccepted(tenant.clientId, second.clientSecret, 'the second secret, now the previous one');
  await assertAccepted(tenant.clientId, third.clientSecret, 'the third secret');
});

test('the immediate rotation is unchanged: the old secret stops at once (overlap or not) and every grant is revoked', async () => {
  clock.set(Date.now());
  const tenant = await machineClient();
  const tokens = await mintTokens(server.ctx, tenant);
  const planned = await rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId, overlapSeconds: 3600 }, OPERATOR, clock.now());
  const immediate = await rotateClientSecret(server.ctx.db, tenant.clientId);
  assert.equal(immediate.revokedGrants.length, 1);
  await assertRefused(tenant.clientId, tenant.clientSecret, 'the secret before the planned rotation');
  await assertRefused(tenant.clientId, planned.clientSecret, 'the secret of the planned rotation');
  await assertAccepted(tenant.clientId, immediate.clientSecret, 'the new secret');
  const grant = await server.ctx.db.selectFrom('grants').select('revoked_reason').where('client_id', '=', tenant.clientId).where('user_id', '=', tenant.userId).executeTakeFirstOrThrow();
  assert.equal(grant.revoked_reason, 'client_secret_rotated', `the grant of ${tokens.id_token.slice(0, 10)}… is revoked`);
});

test('an overlap outside 1 second to 7 days is refused; another organisation\'s client is not found', async () => {
  const tenant = await machineClient();
  const other = await machineClient();
  for (const overlapSeconds of [0, 7 * 24 * 3600 + 1, 1.5]) {
    await assert.rejects(rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId, overlapSeconds }, OPERATOR), { status: 400, code: 'validation_failed' });
  }
  await assert.rejects(rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId, organisationId: other.organisationId }, admin), { status: 404 });
  await assert.rejects(endSecretOverlap(server.ctx.db, tenant.clientId, admin, other.organisationId), { status: 404 });
  await assert.rejects(rotateClientSecretWithOverlap(server.ctx.db, { clientId: tenant.clientId }, admin), /organisationId/, 'a console user must name its organisation');
  await assertAccepted(tenant.clientId, tenant.clientSecret, 'nothing changed');
});
