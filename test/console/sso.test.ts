// The console's single sign-on section (CONTRACT §6, §8) over plain HTTP: an admin adds a provider
// (checked against its discovery document, the secret never shown back), edits it, enforces SSO and
// removes the provider; a refused domain, and an issuer that cannot be reached (by its category
// only), are explained on the page; a viewer only reads; another organisation's provider is a 404;
// every change is audited with the console user as actor.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ManualClock } from '../../src/platform/clock.ts';
import { freePort, startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { enrolPerson, type ConsolePerson } from '../support/console.ts';
import { startIdentityProvider, type IdentityProvider } from '../sso/identity-provider.ts';
import { ssoTenant } from '../sso/fixtures.ts';

const clock = new ManualClock();
const logLines: string[] = [];
const logStream = new PassThrough();
logStream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
let server: TestServer;
let idp: IdentityProvider;
let home: Tenant;
let admin: ConsolePerson;
before(async () => {
  server = await startTestServer({ SSO_ALLOW_INSECURE: '1', LOG_LEVEL: 'warn' }, { clock, inProcess: true, logStream });
  idp = await startIdentityProvider(`${server.config.authUrl}/oauth/sso/callback`);
  home = await provisionTenant(server.ctx, { name: 'Console SSO' });
  admin = await enrolPerson(server, clock, home.organisationId);
});
after(async () => {
  await Promise.all([server.close(), idp.close()]);
});

test('an admin adds a provider, enforces SSO and removes the provider', async () => {
  const empty = await admin.agent.get('/console/sso');
  assert.equal(empty.status, 200);
  assert.match(empty.html, /No provider yet/);
  assert.match(empty.html, new RegExp(`${server.config.authUrl}/oauth/sso/callback`), 'the redirect URI to register is shown');

  const added = await admin.agent.submit('/console/sso', '/console/sso/providers', { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains: 'console-sso.example\nConsole-SSO-two.example' });
  assert.equal(added.status, 303, added.html);
  const listed = await admin.agent.get('/console/sso');
  assert.match(listed.html, new RegExp(`data-testid="sso-issuer">${idp.issuer}<`));
  assert.match(listed.html, /console-sso\.example, console-sso-two\.example|console-sso-two\.example, console-sso\.example/);
  assert.doesNotMatch(listed.html, new RegExp(idp.clientSecret), 'the secret is never shown back');

  const [provider] = await server.ctx.db.selectFrom('sso_providers').select(['id', 'client_secret_encrypted']).where('organisation_id', '=', home.organisationId).execute();
  assert.ok(provider);
  const edited = await admin.agent.submit('/console/sso', `/console/sso/providers/${provider.id}`, { clientId: idp.clientId, clientSecret: '', domains: 'console-sso.example' });
  assert.equal(edited.status, 303, edited.html);
  const afterEdit = await server.ctx.db.selectFrom('sso_providers').select('client_secret_encrypted').where('id', '=', provider.id).executeTakeFirstOrThrow();
  assert.equal(afterEdit.client_secret_encrypted, provider.client_secret_encrypted, 'an empty secret field keeps the stored secret');
  const domains = await server.ctx.db.selectFrom('sso_domains').select('domain').where('provider_id', '=', provider.id).execute();
  assert.deepEqual(domains.map((d) => d.domain), ['console-sso.example'], 'the domain left out is released');
  const resecreted = await admin.agent.submit('/console/sso', `/console/sso/providers/${provider.id}`, { clientId: idp.clientId, clientSecret: 'rotated-at-the-provider', domains: 'console-sso.example' });
  assert.equal(resecreted.status, 303, resecreted.html);
  assert.notEqual((await server.ctx.db.selectFrom('sso_providers').select('client_secret_encrypted').where('id', '=', provider.id).executeTakeFirstOrThrow()).client_secret_encrypted, provider.client_secret_encrypted);
  assert.doesNotMatch((await admin.agent.get('/console/sso')).html, /rotated-at-the-provider/);

  assert.equal((await admin.agent.submit('/console/sso', '/console/sso/enforcement', { enforce: 'on' })).status, 303);
  assert.match((await admin.agent.get('/console/sso')).html, /SSO is <strong>enforced<\/strong>/);

  assert.equal((await admin.agent.submit('/console/sso', `/console/sso/providers/${provider.id}/remove`)).status, 303);
  assert.match((await admin.agent.get('/console/sso')).html, /No provider yet/);

  const audit = await server.ctx.db.selectFrom('audit_log').select(['event', 'detail', 'actor_email']).where('organisation_id', '=', home.organisationId).where('detail', 'like', 'sso_%').orderBy('at').execute();
  assert.deepEqual(audit.map((a) => `${a.event}:${a.detail}:${a.actor_email}`), ['sso_provider_added', 'sso_provider_updated', 'sso_provider_updated', 'sso_enforcement_on', 'sso_provider_removed'].map((d) => `console_change:${d}:${admin.email}`));
});

test('a refused provider is explained on the page with what was typed; nothing is stored', async () => {
  const other = await ssoTenant(server, idp);
  const refused = await admin.agent.submit('/console/sso', '/console/sso/providers', { issuer: idp.issuer, clientId: 'mine', clientSecret: 's', domains: other.domain });
  assert.equal(refused.status, 409);
  assert.match(refused.html, /role="alert">[^<]*already belongs? to another SSO provider/);
  assert.match(refused.html, new RegExp(`value="${idp.issuer}"`));
  const badIssuer = await admin.agent.submit('/console/sso', '/console/sso/providers', { issuer: 'http://idp.example.com', clientId: 'mine', clientSecret: 's', domains: 'fresh.example' });
  assert.equal(badIssuer.status, 400);
  assert.match(badIssuer.html, /Issuer must be https/);
  assert.equal((await server.ctx.db.selectFrom('sso_providers').select('id').where('organisation_id', '=', home.organisationId).execute()).length, 0);
});

test('an issuer that cannot be reached is explained by its category, without address, port or error code; the log has the detail', async () => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const refused = await admin.agent.submit('/console/sso', '/console/sso/providers', { issuer, clientId: 'mine', clientSecret: 's', domains: 'unreachable.example' });
  assert.equal(refused.status, 400);
  const alert = /role="alert">([^<]*)</.exec(refused.html)?.[1] ?? '';
  assert.equal(alert, 'Issuer could not be reached: the connection to it failed.');
  assert.doesNotMatch(refused.html, /ECONN|EHOST|ENET|errno|connect /, 'no error code on the page');
  assert.equal(refused.html.split(String(port)).length - 1, 1, 'the port appears once: in the issuer field, as typed');

  await new Promise((resolve) => setImmediate(resolve));
  const requestId = refused.headers.get('x-request-id');
  const logged = logLines.map((line) => JSON.parse(line) as { level: number; reqId?: string; msg: string; detail?: string }).find((entry) => entry.msg === 'SSO discovery failed' && entry.reqId === requestId);
  assert.ok(logged, `a warning under the request id ${String(requestId)}`);
  assert.equal(logged.level, 40, 'warn');
  assert.match(logged.detail ?? '', new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`), 'the operator reads the detail');
});

test('a viewer reads but cannot change; another organisation\'s provider is a 404', async () => {
  const viewer = await enrolPerson(server, clock, home.organisationId, 'viewer');
  const page = await viewer.agent.get('/console/sso');
  assert.equal(page.status, 200);
  assert.doesNotMatch(page.html, /Add provider|Enforce SSO/);
  assert.equal((await viewer.agent.submit('/console/sso', '/console/sso/enforcement', { enforce: 'on' })).status, 403);

  const other = await ssoTenant(server, idp);
  const removed = await admin.agent.submit('/console/sso', `/console/sso/providers/${other.providerId}/remove`);
  assert.equal(removed.status, 404);
  const edited = await admin.agent.submit('/console/sso', `/console/sso/providers/${other.providerId}`, { clientId: 'taken-over', domains: other.domain });
  assert.equal(edited.status, 404);
  assert.equal((await viewer.agent.submit('/console/sso', `/console/sso/providers/${other.providerId}`, { clientId: 'x', domains: 'x.example' })).status, 403);
  const untouched = await server.ctx.db.selectFrom('sso_providers').select('client_id').where('id', '=', other.providerId).executeTakeFirst();
  assert.ok(untouched, 'still there');
  assert.notEqual(untouched.client_id, 'taken-over');
});
