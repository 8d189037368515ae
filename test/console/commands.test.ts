// `wfs invite-console-user` (CONTRACT §6) as a real process: its exact --json result, the default
// role, its failures, and an invitation that the running service then opens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useMigratedDatabase } from '../support/database.ts';
import { createOrganisation } from '../../src/iam/provisioning.ts';
import { lastJson } from '../support/processes.ts';
import { startTestServer } from '../support/server.ts';
import { ConsoleAgent } from '../support/console.ts';
import { wfs, wfsJson } from '../cli/wfs.ts';

const database = useMigratedDatabase();

test('invite-console-user prints {inviteUrl, expiresAt}: a single-use link valid 72 hours, admin by default', async () => {
  const { organisationId } = await createOrganisation(database.db, { name: 'Invited Org' });
  const before = Date.now();
  const result = await wfsJson(database.url, ['invite-console-user', '--org', organisationId, '--email', 'First.Admin@Customer.example'], { AUTH_URL: 'https://auth.example.com' });
  assert.deepEqual(Object.keys(result).sort(), ['expiresAt', 'inviteUrl']);
  assert.match(String(result.inviteUrl), /^https:\/\/auth\.example\.com\/console\/invitations\/[A-Za-z0-9_-]{43}$/);
  const expiresAt = Date.parse(String(result.expiresAt));
  assert.ok(expiresAt >= before + 72 * 3600_000 && expiresAt <= Date.now() + 72 * 3600_000, String(result.expiresAt));
  const stored = await database.db.selectFrom('console_invitations').selectAll().where('organisation_id', '=', organisationId).executeTakeFirstOrThrow();
  assert.equal(stored.role, 'admin');
  assert.equal(stored.email, 'first.admin@customer.example');
  assert.ok(!String(result.inviteUrl).includes(stored.token_hash), 'only a hash of the token is stored');

  const server = await startTestServer({ DATABASE_URL: database.url, AUTH_URL: 'https://auth.example.com' }, { inProcess: true });
  try {
    const page = await new ConsoleAgent(server).get(new URL(String(result.inviteUrl)).pathname);
    assert.equal(page.status, 200);
    assert.match(page.html, /first\.admin@customer\.example/);
  } finally {
    await server.close();
  }
});

test('invite-console-user takes --role viewer and refuses other roles, unknown organisations and bad addresses', async () => {
  const { organisationId } = await createOrganisation(database.db, { name: 'Roles Org' });
  await wfsJson(database.url, ['invite-console-user', '--org', organisationId, '--email', 'viewer@customer.example', '--role', 'viewer']);
  const stored = await database.db.selectFrom('console_invitations').select('role').where('email', '=', 'viewer@customer.example').executeTakeFirstOrThrow();
  assert.equal(stored.role, 'viewer');

  const badRole = await wfs(database.url, ['invite-console-user', '--org', organisationId, '--email', 'x@customer.example', '--role', 'owner', '--json']);
  assert.notEqual(badRole.code, 0);
  const unknown = await wfs(database.url, ['invite-console-user', '--org', 'org_nope', '--email', 'x@customer.example', '--json']);
  assert.equal(unknown.code, 1);
  assert.match(String(lastJson(unknown).error), /No organisation org_nope/);
  const badEmail = await wfs(database.url, ['invite-console-user', '--org', organisationId, '--email', 'not an address', '--json']);
  assert.equal(badEmail.code, 1);
  assert.deepEqual(lastJson(badEmail).errors, [{ path: '/email', message: 'must be an email address' }]);
});
