// The console's API Client and API User pages over plain HTTP (CONTRACT §6): what an admin creates
// works at the real endpoints (the secret shown once authenticates, the user logs in and calls the
// API), rotation with overlap keeps both secrets until it is ended, a reset secret revokes the user's
// tokens within 5 seconds, disabling stops logins, grant requests show their state, and nothing of
// another organisation is reachable by URL or form.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock.ts';
import { approveGrantRequest, declineGrantRequest, listGrantRequests } from '../../src/iam/grant-requests.ts';
import { OPERATOR } from '../../src/iam/audit.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { assertRefusedWithin, configurationStatus } from '../support/http.ts';
import type { ConsoleAgent} from '../support/console.ts';
import { enrolPerson, signIn, testId, type ConsolePerson } from '../support/console.ts';
import { loginAndExchange, loginForCode, postToken } from '../iam/helpers.ts';

const clock = new ManualClock();
let server: TestServer;
let home: Tenant;
let admin: ConsolePerson;
let agent: ConsoleAgent;

before(async () => {
  server = await startTestServer({}, { clock, inProcess: true });
  home = await provisionTenant(server.ctx, { name: 'Console Clients' });
  admin = await enrolPerson(server, clock, home.organisationId);
  agent = admin.agent;
});
after(() => server.close());

/** Client authentication at the token endpoint: 400 unauthorized_client means the secret was right. */
async function secretAccepted(clientId: string, clientSecret: string): Promise<boolean> {
  const response = await postToken(server, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  const body = (await response.json()) as { error: string };
  assert.ok(response.status === 401 || body.error === 'unauthorized_client', `${response.status} ${body.error}`);
  return response.status !== 401;
}

async function createClient(name: string, redirectUris: string): Promise<{ clientId: string; clientSecret: string }> {
  const page = `/console/companies/${home.companyId}`;
  const created = await agent.submit(page, `${page}/clients`, { name, redirectUris });
  assert.equal(created.status, 200, created.html);
  return { clientId: testId(created.html, 'client-id'), clientSecret: testId(created.html, 'client-secret') };
}

async function createUser(clientId: string, email: string): Promise<{ userId: string; email: string; secret: string }> {
  const page = `/console/clients/${clientId}/users`;
  const created = await agent.submit(page, page, { email });
  assert.equal(created.status, 200, created.html);
  return { userId: testId(created.html, 'user-id'), email: testId(created.html, 'user-email'), secret: testId(created.html, 'user-secret') };
}

describe('API Clients', () => {
  test('a client created on the page authenticates with the secret shown once; its user logs in and calls the API', async () => {
    const redirectUri = 'https://app.customer.example/callback';
    const client = await createClient('Rostering app', `${redirectUri}\n  http://127.0.0.1/cb  \n`);
    assert.match(client.clientId, /^cli_/);
    assert.ok(await secretAccepted(client.clientId, client.clientSecret));
    const detail = await agent.get(`/console/clients/${client.clientId}`);
    assert.equal(detail.status, 200);
    assert.ok(!detail.html.includes(client.clientSecret), 'the secret is never shown again');
    assert.match(detail.html, /http:\/\/127\.0\.0\.1\/cb/);
    assert.match((await agent.get(`/console/companies/${home.companyId}`)).html, /Rostering app/);

    const user = await createUser(client.clientId, 'Planner@Customer.example');
    assert.equal(user.email, 'planner@customer.example');
    const tenant: Tenant = { ...home, ...client, userId: user.userId, email: user.email, secret: user.secret, redirectUri };
    const tokens = await loginAndExchange(server, tenant);
    assert.equal(await configurationStatus(server.baseUrl, tokens.id_token), 200);
  });

  test('every value is escaped: a name with markup is shown as text', async () => {
    const name = '<img src=x onerror=alert(1)> & "quotes"';
    const client = await createClient(name, 'https://escaped.example/cb');
    for (const path of [`/console/clients/${client.clientId}`, `/console/companies/${home.companyId}`]) {
      const html = (await agent.get(path)).html;
      assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;'), path);
      assert.ok(!html.includes('<img src=x'), path);
    }
  });

  test('bad input shows the form again with the reason and what was typed; nothing is created', async () => {
    const page = `/console/companies/${home.companyId}`;
    const before = (await server.ctx.db.selectFrom('api_clients').select('id').execute()).length;
    const answer = await agent.submit(page, `${page}/clients`, { name: 'Plain http', redirectUris: 'https://ok.example/cb\nhttp://app.example/cb' });
    assert.equal(answer.status, 400);
    assert.match(answer.html, /Redirect URI on line 2 must use https/);
    assert.match(answer.html, /value="Plain http"/);
    assert.equal((await server.ctx.db.selectFrom('api_clients').select('id').execute()).length, before);
  });

  test('rotation with overlap: both secrets work until the overlap is ended, then only the new one; no token is revoked', async () => {
    const client = await createClient('Rotating', 'https://rotate.example/cb');
    const user = await createUser(client.clientId, 'rotate@customer.example');
    const tokens = await loginAndExchange(server, { ...home, ...client, userId: user.userId, email: user.email, secret: user.secret, redirectUri: 'https://rotate.example/cb' });
    const page = `/console/clients/${client.clientId}`;
    assert.match((await agent.get(page)).html, /<option value="86400" selected>24 hours/);
    const rotated = await agent.submit(page, `${page}/rotate-secret`, { overlapSeconds: '3600' });
    assert.equal(rotated.status, 200, rotated.html);
    const newSecret = testId(rotated.html, 'client-secret');
    assert.notEqual(newSecret, client.clientSecret);
    assert.ok(await secretAccepted(client.clientId, client.clientSecret), 'the old secret still works during the overlap');
    assert.ok(await secretAccepted(client.clientId, newSecret));
    assert.match((await agent.get(page)).html, /previous secret keeps working until/);

    const ended = await agent.submit(page, `${page}/end-overlap`);
    assert.equal(ended.status, 200);
    assert.ok(!(await secretAccepted(client.clientId, client.clientSecret)), 'ended early: the old secret fails');
    assert.ok(await secretAccepted(client.clientId, newSecret));
    assert.equal(await configurationStatus(server.baseUrl, tokens.id_token), 200, 'no grant was revoked');
  });

  test('an overlap ends by itself at the time picked', async () => {
    const client = await createClient('Expiring overlap', 'https://expire.example/cb');
    const page = `/console/clients/${client.clientId}`;
    const rotated = await agent.submit(page, `${page}/rotate-secret`, { overlapSeconds: '3600' });
    const newSecret = testId(rotated.html, 'client-secret');
    clock.advance(3600_000 + 1000);
    assert.ok(!(await secretAccepted(client.clientId, client.clientSecret)));
    assert.ok(await secretAccepted(client.clientId, newSecret));
    clock.advance(-3600_000 - 1000);
  });

  test('an overlap longer than 7 days is refused', async () => {
    const client = await createClient('Too long', 'https://long.example/cb');
    const page = `/console/clients/${client.clientId}`;
    const answer = await agent.submit(page, `${page}/rotate-secret`, { overlapSeconds: String(7 * 86400 + 1) });
    assert.equal(answer.status, 400);
    assert.match(answer.html, /The overlap must be a whole number from 1 to 604800/);
    assert.ok(await secretAccepted(client.clientId, client.clientSecret));
  });

  test('disabling a client stops its secret and logins; enabling brings them back', async () => {
    const client = await createClient('Switchable', 'https://switch.example/cb');
    const user = await createUser(client.clientId, 'switch@customer.example');
    const tenant = { ...home, ...client, userId: user.userId, email: user.email, secret: user.secret, redirectUri: 'https://switch.example/cb' };
    const tokens = await loginAndExchange(server, tenant);
    const page = `/console/clients/${client.clientId}`;
    assert.equal((await agent.submit(page, `${page}/disable`)).status, 200);
    assert.ok(!(await secretAccepted(client.clientId, client.clientSecret)));
    await assertRefusedWithin(server.baseUrl, tokens.id_token, 5000);
    assert.match((await agent.get(page)).html, /Enable client/);
    assert.equal((await agent.submit(page, `${page}/enable`)).status, 200);
    assert.ok(await secretAccepted(client.clientId, client.clientSecret));
    assert.ok(await loginForCode(server, tenant));
  });

  test('a grant request with its reason waits for the operator; the page shows its state', async () => {
    const client = await createClient('Needs grants', 'https://grants.example/cb');
    const page = `/console/clients/${client.clientId}`;
    const missingReason = await agent.submit(page, `${page}/grant-requests`, { grant: 'client_credentials', reason: ' ' });
    assert.equal(missingReason.status, 400);
    assert.match(missingReason.html, /Reason is required/);
    const asked = await agent.submit(page, `${page}/grant-requests`, { grant: 'client_credentials', reason: 'Nightly export job' });
    assert.equal(asked.status, 200);
    assert.match(asked.html, /data-testid="grant-request-state">pending</);
    const [request] = await listGrantRequests(server.ctx.db, { clientId: client.clientId });
    assert.equal(request?.reason, 'Nightly export job');
    await approveGrantRequest(server.ctx.db, request?.id ?? '', OPERATOR);
    const after = await agent.get(page);
    assert.match(after.html, /data-testid="grant-request-state">approved</);
    assert.match(after.html, /<span class="tag">client_credentials<\/span>/);

    await agent.submit(page, `${page}/grant-requests`, { grant: 'sso', reason: 'Sign in with our Entra ID' });
    const sso = (await listGrantRequests(server.ctx.db, { clientId: client.clientId })).find((r) => r.grant === 'sso');
    await declineGrantRequest(server.ctx.db, sso?.id ?? '', 'Add an SSO provider first', OPERATOR);
    const declined = await agent.get(page);
    assert.match(declined.html, /data-testid="grant-request-state">declined</);
    assert.match(declined.html, /Declined: Add an SSO provider first/);
  });
});

describe('API Users', () => {
  test('resetting a secret shows the new one once and revokes the user\'s tokens within 5 seconds', async () => {
    const client = await createClient('Reset', 'https://reset.example/cb');
    const user = await createUser(client.clientId, 'reset@customer.example');
    const tenant = { ...home, ...client, userId: user.userId, email: user.email, secret: user.secret, redirectUri: 'https://reset.example/cb' };
    const tokens = await loginAndExchange(server, tenant);
    const page = `/console/clients/${client.clientId}/users`;
    const reset = await agent.submit(page, `/console/users/${user.userId}/reset-secret`);
    assert.equal(reset.status, 200, reset.html);
    const secret = testId(reset.html, 'user-secret');
    assert.notEqual(secret, user.secret);
    await assertRefusedWithin(server.baseUrl, tokens.id_token, 5000);
    await assert.rejects(loginForCode(server, tenant), /401/);
    assert.ok(await loginForCode(server, { ...tenant, secret }));
  });

  test('revoking sessions signs the user out everywhere; disabling stops logins until enabled', async () => {
    const client = await createClient('Sessions', 'https://sessions.example/cb');
    const user = await createUser(client.clientId, 'sessions@customer.example');
    const tenant = { ...home, ...client, userId: user.userId, email: user.email, secret: user.secret, redirectUri: 'https://sessions.example/cb' };
    const page = `/console/clients/${client.clientId}/users`;
    const tokens = await loginAndExchange(server, tenant);
    const revoked = await agent.submit(page, `/console/users/${user.userId}/revoke-sessions`);
    assert.match(revoked.html, /1 session revoked/);
    await assertRefusedWithin(server.baseUrl, tokens.id_token, 5000);

    assert.equal((await agent.submit(page, `/console/users/${user.userId}/disable`)).status, 200);
    await assert.rejects(loginForCode(server, tenant), /401/);
    assert.equal((await agent.submit(page, `/console/users/${user.userId}/enable`)).status, 200);
    assert.ok(await loginForCode(server, tenant));
  });

  test('an email already used for the client is refused on the form', async () => {
    const client = await createClient('Twice', 'https://twice.example/cb');
    await createUser(client.clientId, 'twice@customer.example');
    const page = `/console/clients/${client.clientId}/users`;
    const again = await agent.submit(page, page, { email: 'twice@customer.example' });
    assert.equal(again.status, 409);
    assert.match(again.html, /already an API user of this client/);
  });
});

describe('another organisation', () => {
  test('its company, client and user ids in URLs and forms are 404, and nothing changes', async () => {
    const other = await provisionTenant(server.ctx, { name: 'Other Org' });
    const gets = [`/console/companies/${other.companyId}`, `/console/clients/${other.clientId}`, `/console/clients/${other.clientId}/users`];
    for (const path of gets) {
      const answer = await agent.get(path);
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.html, /Other Org|Test client/, path);
    }
    const form = `/console/companies/${home.companyId}`;
    const posts: [string, Record<string, string>][] = [
      [`/console/companies/${other.companyId}/clients`, { name: 'Intruder', redirectUris: 'https://x.example/cb' }],
      [`/console/clients/${other.clientId}/redirect-uris`, { redirectUris: 'https://x.example/cb' }],
      [`/console/clients/${other.clientId}/rotate-secret`, { overlapSeconds: '3600' }],
      [`/console/clients/${other.clientId}/end-overlap`, {}],
      [`/console/clients/${other.clientId}/disable`, {}],
      [`/console/clients/${other.clientId}/grant-requests`, { grant: 'refresh_token', reason: 'mine now' }],
      [`/console/clients/${other.clientId}/users`, { email: 'intruder@customer.example' }],
      [`/console/users/${other.userId}/reset-secret`, {}],
      [`/console/users/${other.userId}/revoke-sessions`, {}],
      [`/console/users/${other.userId}/disable`, {}],
    ];
    for (const [action, fields] of posts) {
      const answer = await agent.submit(form, action, fields);
      assert.equal(answer.status, 404, action);
    }
    assert.ok(await secretAccepted(other.clientId, other.clientSecret), 'the other client is untouched');
    assert.ok(await loginForCode(server, other), 'the other user still logs in');
  });
});

describe('a viewer', () => {
  test('reads the pages but every form it replays with its own CSRF token is refused', async () => {
    const client = await createClient('Viewed', 'https://viewed.example/cb');
    const user = await createUser(client.clientId, 'viewed@customer.example');
    const viewer = await enrolPerson(server, clock, home.organisationId, 'viewer');
    const page = await viewer.agent.get(`/console/clients/${client.clientId}`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.html, /Rotate secret|Disable client|Save redirect URIs|Request grant/);
    const token = /name="csrf_token" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
    const posts: [string, Record<string, string>][] = [
      [`/console/companies/${home.companyId}/clients`, { name: 'Viewer app', redirectUris: 'https://v.example/cb' }],
      [`/console/clients/${client.clientId}/redirect-uris`, { redirectUris: 'https://v.example/cb' }],
      [`/console/clients/${client.clientId}/rotate-secret`, { overlapSeconds: '3600' }],
      [`/console/clients/${client.clientId}/disable`, {}],
      [`/console/clients/${client.clientId}/grant-requests`, { grant: 'refresh_token', reason: 'please' }],
      [`/console/clients/${client.clientId}/users`, { email: 'v@customer.example' }],
      [`/console/users/${user.userId}/reset-secret`, {}],
      [`/console/users/${user.userId}/disable`, {}],
    ];
    for (const [action, fields] of posts) {
      const answer = await viewer.agent.request('POST', action, { csrf_token: token, ...fields });
      assert.equal(answer.status, 403, action);
    }
    assert.ok(await secretAccepted(client.clientId, client.clientSecret));
  });
});

describe('step-up', () => {
  test('creating a client more than 10 minutes after the last confirmation asks for password and code first', async () => {
    const { agent: fresh } = await signIn(server, clock, admin);
    clock.advance(11 * 60_000);
    const page = `/console/companies/${home.companyId}`;
    const shown = await fresh.get(page);
    assert.match(shown.html, /confirm it is you/);
    assert.doesNotMatch(shown.html, /Create client/);
    const posted = await fresh.request('POST', `${page}/clients`, { csrf_token: /name="csrf_token" value="([^"]+)"/.exec(shown.html)?.[1] ?? '', name: 'Late', redirectUris: 'https://late.example/cb' });
    assert.equal(posted.status, 303);
    assert.match(posted.location ?? '', /^\/console\/step-up\?next=/);
    clock.advance(-11 * 60_000);
  });
});
