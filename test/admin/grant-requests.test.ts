// The operator API's grant requests and planned rotations (CONTRACT §5, §6): the same actions and
// results as `wfs … --json`, problem+json failures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { bearer, provisionTenant } from '../support/tenants.ts';
import { requestGrant } from '../../src/iam/grant-requests.ts';
import type { Actor } from '../../src/iam/audit.ts';

const ADMIN_TOKEN = 'operator-token-for-tests-0123456789';
const requester: Actor = { kind: 'console_user', id: 'cu_api', email: 'admin@acme.example' };

let server: TestServer;
before(async () => {
  server = await startTestServer({ ADMIN_TOKEN }, { inProcess: true });
});
after(() => server.close());

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await server.fetch(`${server.baseUrl}/api/v1/admin${path}`, {
    method,
    headers: { ...bearer(ADMIN_TOKEN), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('list, approve and decline grant requests over HTTP', async () => {
  const tenant = await provisionTenant(server.ctx);
  const ask = (grant: string, now: number) => requestGrant(server.ctx.db, { clientId: tenant.clientId, grant, reason: `need ${grant}`, organisationId: tenant.organisationId }, requester, now);
  // A millisecond apart: made in the same millisecond, the two would tie and come back in id order.
  const first = await ask('client_credentials', Date.now());
  const second = await ask('sso', Date.now() + 1);

  const listed = await admin('GET', `/grant-requests?status=pending&clientId=${tenant.clientId}`);
  assert.equal(listed.status, 200);
  assert.deepEqual((listed.body.requests as { id: string }[]).map((r) => r.id), [second.id, first.id]);
  assert.deepEqual((await admin('GET', `/grant-requests?organisationId=${tenant.organisationId}&status=approved`)).body, { requests: [] });

  const approved = await admin('POST', `/grant-requests/${first.id}/approve`);
  assert.deepEqual([approved.status, approved.body.status, approved.body.grant], [200, 'approved', 'client_credentials']);
  const token = await server.fetch(`${server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }) });
  assert.equal(token.status, 200, 'the approved grant works');

  const declined = await admin('POST', `/grant-requests/${second.id}/decline`, { reason: 'not yet' });
  assert.deepEqual([declined.status, declined.body.status, declined.body.declineReason], [200, 'declined', 'not yet']);

  const twice = await admin('POST', `/grant-requests/${first.id}/approve`);
  assert.deepEqual([twice.status, twice.body.code], [409, 'grant_request_decided']);
  assert.equal((await admin('POST', '/grant-requests/grq_nope/approve')).status, 404);
  assert.equal((await admin('POST', `/grant-requests/${second.id}/decline`, {})).status, 400, 'a reason is required');
  assert.equal((await admin('GET', '/grant-requests?status=maybe')).status, 400);
});

test('rotate-secret with overlapSeconds keeps the old secret until previousSecretExpiresAt; without a body it is immediate', async () => {
  const tenant = await provisionTenant(server.ctx);
  await admin('POST', `/api-clients/${tenant.clientId}/grants/client_credentials`);
  const tokenWith = (secret: string) => server.fetch(`${server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: secret }) });

  const planned = await admin('POST', `/api-clients/${tenant.clientId}/rotate-secret`, { overlapSeconds: 600 });
  assert.equal(planned.status, 200);
  assert.deepEqual(Object.keys(planned.body).sort(), ['clientId', 'clientSecret', 'previousSecretExpiresAt']);
  assert.equal((await tokenWith(tenant.clientSecret)).status, 200);
  assert.equal((await tokenWith(String(planned.body.clientSecret))).status, 200);

  assert.deepEqual((await admin('POST', `/api-clients/${tenant.clientId}/end-secret-overlap`)).body, { clientId: tenant.clientId, previousSecretExpiresAt: null });
  assert.equal((await tokenWith(tenant.clientSecret)).status, 401);

  assert.equal((await admin('POST', `/api-clients/${tenant.clientId}/rotate-secret`, { overlapSeconds: 604_801 })).status, 400);
  const immediate = await admin('POST', `/api-clients/${tenant.clientId}/rotate-secret`);
  assert.deepEqual(Object.keys(immediate.body).sort(), ['clientId', 'clientSecret']);
  assert.equal((await tokenWith(String(planned.body.clientSecret))).status, 401);
  assert.equal((await admin('POST', `/api-clients/${tenant.clientId}/grants/sso`)).body.grants instanceof Array, true, 'sso can be enabled');
});
