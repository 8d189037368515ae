// The console's part of the operator API (CONTRACT §5: "the same actions over HTTP"):
// POST /api/v1/admin/console-invitations answers what `wfs invite-console-user --json` prints, with
// the same checks and the same audit entry; off without ADMIN_TOKEN, Bearer ADMIN_TOKEN otherwise.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { bearer, provisionTenant } from '../support/tenants.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ConsoleAgent, enrolPerson } from '../support/console.ts';

const ADMIN_TOKEN = 'operator-token-for-tests-0123456789';
const clock = new ManualClock();

let server: TestServer;
let off: TestServer;
before(async () => {
  [server, off] = await Promise.all([startTestServer({ ADMIN_TOKEN }, { inProcess: true, clock }), startTestServer({}, { inProcess: true })]);
});
after(async () => {
  await Promise.all([server.close(), off.close()]);
});

async function invite(body: unknown, token = ADMIN_TOKEN, target = server): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await target.fetch(`${target.baseUrl}/api/v1/admin/console-invitations`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('invites a person: 201 {inviteUrl, expiresAt}, admin by default, a link the console opens, audited as the operator\'s', async () => {
  const { organisationId } = await provisionTenant(server.ctx, { name: 'Invited Over HTTP' });
  const before = Date.now();
  const answer = await invite({ organisationId, email: ' First.Admin@Http.example ' });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  assert.deepEqual(Object.keys(answer.body).sort(), ['expiresAt', 'inviteUrl']);
  assert.match(String(answer.body.inviteUrl), new RegExp(`^${server.config.authUrl}/console/invitations/[A-Za-z0-9_-]{43}$`));
  const expiresAt = Date.parse(String(answer.body.expiresAt));
  assert.ok(expiresAt >= before + 72 * 3600_000 && expiresAt <= Date.now() + 72 * 3600_000, String(answer.body.expiresAt));

  const stored = await server.ctx.db.selectFrom('console_invitations').selectAll().where('organisation_id', '=', organisationId).executeTakeFirstOrThrow();
  assert.deepEqual([stored.email, stored.role, stored.invited_by], ['first.admin@http.example', 'admin', null]);
  const page = await new ConsoleAgent(server).get(new URL(String(answer.body.inviteUrl)).pathname);
  assert.equal(page.status, 200);
  assert.match(page.html, /first\.admin@http\.example/);

  const audited = await server.ctx.db.selectFrom('audit_log').select(['event', 'detail', 'actor_kind']).where('organisation_id', '=', organisationId).where('detail', '=', 'console_user_invited').execute();
  assert.deepEqual(audited.map((row) => ({ ...row })), [{ event: 'operator_change', detail: 'console_user_invited', actor_kind: 'operator' }]);
});

test('takes role viewer; refuses other roles, bad addresses and unknown fields (400), unknown organisations (404), a taken address (409)', async () => {
  const { organisationId } = await provisionTenant(server.ctx, { name: 'Roles Over HTTP' });
  assert.equal((await invite({ organisationId, email: 'viewer@http.example', role: 'viewer' })).status, 201);
  const stored = await server.ctx.db.selectFrom('console_invitations').select('role').where('email', '=', 'viewer@http.example').executeTakeFirstOrThrow();
  assert.equal(stored.role, 'viewer');

  for (const [body, path] of [
    [{ organisationId, email: 'x@http.example', role: 'owner' }, '/role'],
    [{ organisationId, email: 'not an address' }, '/email'],
    [{ organisationId }, '/email'],
    [{ organisationId, email: 'x@http.example', admin: true }, '/admin'],
  ] as const) {
    const answer = await invite(body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.equal(answer.body.code, 'validation_failed');
    assert.ok((answer.body.errors as { path: string }[]).some((error) => error.path === path), JSON.stringify(answer.body));
  }
  const unknown = await invite({ organisationId: 'org_nope', email: 'x@http.example' });
  assert.deepEqual([unknown.status, unknown.body.code], [404, 'not_found']);
  const member = await enrolPerson(server, clock, organisationId);
  const taken = await invite({ organisationId, email: member.email.toUpperCase() });
  assert.deepEqual([taken.status, taken.body.code], [409, 'email_taken']);
});

test('needs the operator\'s token, and is off (404) without ADMIN_TOKEN', async () => {
  const { organisationId } = await provisionTenant(server.ctx, { name: 'Guarded' });
  assert.equal((await invite({ organisationId, email: 'g@http.example' }, 'not-the-operator-token-0123456789')).status, 401);
  assert.equal((await invite({ organisationId, email: 'g@http.example' }, ADMIN_TOKEN, off)).status, 404);
  assert.equal(await server.ctx.db.selectFrom('console_invitations').select('token_hash').where('email', '=', 'g@http.example').executeTakeFirst(), undefined);
});
