// The operator's side of grant requests and planned secret rotation in `wfs` (CONTRACT §5, §6), run
// as real processes against a fresh database: exact --json results, what they change, and failures
// as `{error}` with a non-zero exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useMigratedDatabase } from '../support/database.ts';
import { createApiClient, createCompany, createOrganisation } from '../../src/iam/provisioning.ts';
import { requestGrant } from '../../src/iam/grant-requests.ts';
import type { Actor } from '../../src/iam/audit.ts';
import { lastJson } from '../support/processes.ts';
import { clientTakesSecret } from '../support/tenants.ts';
import { findClient } from '../../src/iam/clients.ts';
import { wfs, wfsJson } from './wfs.ts';

const database = useMigratedDatabase();

const requester: Actor = { kind: 'console_user', id: 'cu_cli', email: 'admin@acme.example' };

async function client(): Promise<{ organisationId: string; clientId: string; clientSecret: string }> {
  const { organisationId } = await createOrganisation(database.db, { name: 'Acme' });
  const { companyId } = await createCompany(database.db, { organisationId, name: 'Acme Utrecht', timezone: 'Europe/Amsterdam', currency: 'EUR' });
  return { organisationId, ...(await createApiClient(database.db, { companyId, name: 'Rostering', redirectUris: ['https://app.example.com/cb'] })) };
}

test('grant-requests lists the queue; approve-grant-request enables the grant; decline-grant-request keeps the reason', async () => {
  const acme = await client();
  const ask = (grant: string, reason: string, now: number) => requestGrant(database.db, { clientId: acme.clientId, grant, reason, organisationId: acme.organisationId }, requester, now);
  // A millisecond apart: made in the same millisecond, the two would tie and come back in id order.
  const sso = await ask('sso', 'staff sign in with Entra ID', Date.now());
  const machine = await ask('client_credentials', 'nightly export', Date.now() + 1);

  const listed = await wfsJson(database.url, ['grant-requests', '--status', 'pending']);
  const mine = (listed.requests as Record<string, unknown>[]).filter((r) => r.clientId === acme.clientId);
  assert.deepEqual(mine.map((r) => Object.keys(r).sort()), [machine, sso].map(() => ['clientId', 'createdAt', 'decidedAt', 'declineReason', 'grant', 'id', 'reason', 'status']));
  assert.deepEqual(mine.map((r) => [r.id, r.grant, r.status, r.reason, r.decidedAt]), [
    [machine.id, 'client_credentials', 'pending', 'nightly export', null],
    [sso.id, 'sso', 'pending', 'staff sign in with Entra ID', null],
  ], 'newest first');

  const approved = await wfsJson(database.url, ['approve-grant-request', machine.id]);
  assert.deepEqual([approved.id, approved.status], [machine.id, 'approved']);
  assert.deepEqual((await findClient(database.db, acme.clientId))?.grants, ['authorization_code', 'client_credentials']);

  const declined = await wfsJson(database.url, ['decline-grant-request', sso.id, '--reason', 'add an SSO provider first']);
  assert.deepEqual([declined.status, declined.declineReason], ['declined', 'add an SSO provider first']);
  const pending = (await wfsJson(database.url, ['grant-requests', '--status', 'pending'])).requests as Record<string, unknown>[];
  assert.ok(!pending.some((r) => r.clientId === acme.clientId), 'nothing of this client is pending any more');
});

test('grant request failures: decided already, unknown id, missing reason, bad status', async () => {
  const acme = await client();
  const request = await requestGrant(database.db, { clientId: acme.clientId, grant: 'refresh_token', reason: 'x', organisationId: acme.organisationId }, requester);
  await wfsJson(database.url, ['approve-grant-request', request.id]);
  const again = await wfs(database.url, ['approve-grant-request', request.id, '--json']);
  assert.equal(again.code, 1);
  assert.match(String(lastJson(again).error), /already approved/);
  const unknown = await wfs(database.url, ['decline-grant-request', 'grq_nope', '--reason', 'x', '--json']);
  assert.deepEqual([unknown.code, lastJson(unknown)], [1, { error: 'No grant request grq_nope.' }]);
  const noReason = await wfs(database.url, ['decline-grant-request', request.id, '--json']);
  assert.equal(noReason.code, 2, 'a missing option is a usage error');
  const badStatus = await wfs(database.url, ['grant-requests', '--status', 'maybe', '--json']);
  assert.equal(badStatus.code, 2);
  assert.match(String(lastJson(badStatus).error), /maybe/);
});

test('enable-grant accepts sso; rotate-client-secret --overlap keeps the old secret working, end-secret-overlap stops it', async () => {
  const acme = await client();
  assert.deepEqual(await wfsJson(database.url, ['enable-grant', '--client', acme.clientId, '--grant', 'sso']), { clientId: acme.clientId, grants: ['authorization_code', 'sso'] });

  const rotated = await wfsJson(database.url, ['rotate-client-secret', '--client', acme.clientId, '--overlap', '3600']);
  assert.deepEqual(Object.keys(rotated).sort(), ['clientId', 'clientSecret', 'previousSecretExpiresAt']);
  const expires = Date.parse(String(rotated.previousSecretExpiresAt));
  assert.ok(Math.abs(expires - (Date.now() + 3600_000)) < 60_000, 'about an hour from now');
  const takes = (secret: string, now?: number) => clientTakesSecret(database.db, acme.clientId, secret, now);
  assert.ok((await takes(acme.clientSecret)) && (await takes(String(rotated.clientSecret))));
  assert.ok(!(await takes(acme.clientSecret, expires)), 'the old secret ends at the printed instant');

  assert.deepEqual(await wfsJson(database.url, ['end-secret-overlap', '--client', acme.clientId]), { clientId: acme.clientId, previousSecretExpiresAt: null });
  assert.ok(!(await takes(acme.clientSecret)) && (await takes(String(rotated.clientSecret))));

  const tooLong = await wfs(database.url, ['rotate-client-secret', '--client', acme.clientId, '--overlap', '604801', '--json']);
  assert.equal(tooLong.code, 1);
  assert.match(String(lastJson(tooLong).error), /overlapSeconds must be a whole number from 1 to 604800/);
  const immediate = await wfsJson(database.url, ['rotate-client-secret', '--client', acme.clientId]);
  assert.deepEqual(Object.keys(immediate).sort(), ['clientId', 'clientSecret'], 'without --overlap the output is unchanged');
});
