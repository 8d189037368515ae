// Grant requests (CONTRACT §6): a console user asks for a grant with a reason; only the operator
// approves (the grant is enabled, audited with both actors) or declines (with a reason). One pending
// request per client and grant; another organisation's client is not found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { approveGrantRequest, declineGrantRequest, listGrantRequests, requestGrant } from '../../src/iam/grant-requests.ts';
import { getClient } from '../../src/iam/organisation-reads.ts';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { OPERATOR, type Actor } from '../../src/iam/audit.ts';
import { postToken } from './helpers.ts';

const server = useTestServer({}, { inProcess: true });
const admin: Actor = { kind: 'console_user', id: 'cu_req', email: 'requester@customer.example' };

test('a request waits as pending; approval enables the grant and is audited with requester and approver', async () => {
  const tenant = await provisionTenant(server.ctx);
  const { db } = server.ctx;
  const request = await requestGrant(db, { clientId: tenant.clientId, grant: 'client_credentials', reason: ' nightly export ', organisationId: tenant.organisationId }, admin);
  assert.deepEqual({ ...request, id: request.id.slice(0, 4), createdAt: typeof request.createdAt }, {
    id: 'grq_', clientId: tenant.clientId, grant: 'client_credentials', reason: 'nightly export', status: 'pending', createdAt: 'string', decidedAt: null, declineReason: null,
  });
  assert.deepEqual((await listGrantRequests(db, { status: 'pending', clientId: tenant.clientId })).map((r) => r.id), [request.id]);
  const refused = await postToken(server, { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret });
  assert.equal(refused.status, 400, 'not enabled while pending');

  const approved = await approveGrantRequest(db, request.id, OPERATOR);
  assert.equal(approved.status, 'approved');
  assert.ok(approved.decidedAt !== null);
  assert.equal((await postToken(server, { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret })).status, 200, 'enabled by the approval');
  const detail = await getClient(db, tenant.organisationId, tenant.clientId);
  assert.deepEqual(detail.grants, ['authorization_code', 'client_credentials']);
  assert.deepEqual(detail.grantRequests.map((r) => [r.id, r.status]), [[request.id, 'approved']]);
  assert.deepEqual(await listGrantRequests(db, { status: 'pending', clientId: tenant.clientId }), []);

  const audit = await db.selectFrom('audit_log').selectAll().where('client_id', '=', tenant.clientId).where('detail', 'like', 'grant_%').execute();
  const byDetail = new Map(audit.map((r) => [r.detail, r]));
  const asked = byDetail.get('grant_requested:client_credentials');
  assert.deepEqual([asked?.event, asked?.actor_kind, asked?.actor_email, asked?.organisation_id], ['console_change', 'console_user', 'requester@customer.example', tenant.organisationId]);
  const approval = byDetail.get('grant_request_approved:client_credentials');
  assert.deepEqual([approval?.event, approval?.actor_kind], ['operator_change', 'operator']);
  assert.deepEqual(JSON.parse(approval?.context ?? '{}'), { requestId: request.id, requestedBy: admin }, 'the approval names the requester too');
  assert.equal(byDetail.get('grant_enabled:client_credentials')?.actor_kind, 'operator');
});

test('declining keeps the reason; a decided request cannot be decided again', async () => {
  const tenant = await provisionTenant(server.ctx);
  const { db } = server.ctx;
  const request = await requestGrant(db, { clientId: tenant.clientId, grant: 'sso', reason: 'our staff sign in with Entra ID', organisationId: tenant.organisationId }, admin);
  const declined = await declineGrantRequest(db, request.id, 'SSO needs a provider first', OPERATOR);
  assert.deepEqual([declined.status, declined.declineReason], ['declined', 'SSO needs a provider first']);
  assert.deepEqual((await getClient(db, tenant.organisationId, tenant.clientId)).grants, ['authorization_code'], 'nothing enabled');
  await assert.rejects(approveGrantRequest(db, request.id, OPERATOR), { status: 409, code: 'grant_request_decided' });
  await assert.rejects(declineGrantRequest(db, request.id, 'again', OPERATOR), { status: 409, code: 'grant_request_decided' });
  await assert.rejects(approveGrantRequest(db, 'grq_nope', OPERATOR), { status: 404 });
  const again = await requestGrant(db, { clientId: tenant.clientId, grant: 'sso', reason: 'provider added now', organisationId: tenant.organisationId }, admin);
  assert.equal(again.status, 'pending', 'asking again after a decline is allowed');
});

test('bad requests: one pending per grant, nothing for a grant already on, a reason, a known grant, the own organisation, the operator decides', async () => {
  const tenant = await provisionTenant(server.ctx);
  const other = await provisionTenant(server.ctx);
  const { db } = server.ctx;
  const mine = { clientId: tenant.clientId, organisationId: tenant.organisationId };
  const pending = await requestGrant(db, { ...mine, grant: 'refresh_token', reason: 'long sessions' }, admin);
  await assert.rejects(requestGrant(db, { ...mine, grant: 'refresh_token', reason: 'again' }, admin), { status: 409, code: 'grant_request_pending' });
  await setGrantEnabled(db, tenant.clientId, 'client_credentials', true);
  await assert.rejects(requestGrant(db, { ...mine, grant: 'client_credentials', reason: 'x' }, admin), { status: 409, code: 'grant_already_enabled' });
  await assert.rejects(requestGrant(db, { ...mine, grant: 'refresh_token', reason: '   ' }, admin), { status: 400, code: 'validation_failed' });
  await assert.rejects(requestGrant(db, { ...mine, grant: 'password', reason: 'x' }, admin), { status: 400, code: 'validation_failed' });
  await assert.rejects(requestGrant(db, { clientId: other.clientId, organisationId: tenant.organisationId, grant: 'sso', reason: 'x' }, admin), { status: 404 });
  await assert.rejects(approveGrantRequest(db, pending.id, admin), { status: 403, code: 'forbidden' });
  await assert.rejects(declineGrantRequest(db, pending.id, 'no', admin), { status: 403, code: 'forbidden' });
  await assert.rejects(declineGrantRequest(db, pending.id, '', OPERATOR), { status: 400 });
  await assert.rejects(listGrantRequests(db, { status: 'maybe' }), { status: 400 });
  assert.deepEqual((await listGrantRequests(db, { organisationId: other.organisationId })), [], 'nothing of another organisation');
  assert.equal((await listGrantRequests(db, { organisationId: tenant.organisationId }))[0]?.status, 'pending');
});

test('two operators deciding one request at once: exactly one wins', async () => {
  const tenant = await provisionTenant(server.ctx);
  const request = await requestGrant(server.ctx.db, { clientId: tenant.clientId, grant: 'refresh_token', reason: 'x', organisationId: tenant.organisationId }, admin);
  const outcomes = await Promise.allSettled([approveGrantRequest(server.ctx.db, request.id, OPERATOR), declineGrantRequest(server.ctx.db, request.id, 'no', OPERATOR)]);
  assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
  const [stored] = await listGrantRequests(server.ctx.db, { clientId: tenant.clientId });
  const enabled = (await getClient(server.ctx.db, tenant.organisationId, tenant.clientId)).grants.includes('refresh_token');
  assert.equal(enabled, stored?.status === 'approved', 'the grant is on exactly when the approval won');
});

test('requests made in the same millisecond list newest first', async (t) => {
  const tenant = await provisionTenant(server.ctx);
  const { db } = server.ctx;
  // The clock stands still: the requests tie on createdAt and on their ids' time, and the order
  // they were made in must still break the tie.
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const made = [];
  for (const grant of ['client_credentials', 'refresh_token', 'sso']) {
    made.push(await requestGrant(db, { clientId: tenant.clientId, grant, reason: `need ${grant}`, organisationId: tenant.organisationId }, admin));
  }
  assert.deepEqual((await listGrantRequests(db, { clientId: tenant.clientId })).map((r) => r.grant), made.map((r) => r.grant).reverse());
});
