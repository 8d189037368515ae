import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastJson, runWfs, type WfsRun } from '../support/processes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { submitLogin } from '../iam/helpers.ts';
import { openLoginForm } from '../support/login.ts';
import { importCompanyData } from '../../src/company/import.ts';

let server: TestServer;
let tenant: Tenant;
let dir: string;
before(async () => {
  server = await startTestServer();
  // RFC 8252: the client registers a loopback redirect URI; `wfs login` listens on any free port.
  tenant = await provisionTenant(server.ctx, { name: 'Integrator', redirectUris: ['http://127.0.0.1/callback'] });
  await importCompanyData(server.ctx.db, tenant.companyId, {
    departments: [{ ref: 'kitchen', name: 'Kitchen', code: 'KIT' }],
    users: ['Ann', 'Ben', 'Cas'].map((name, i) => ({ ref: name, employeeNumber: `E${i}`, firstName: name, lastName: 'Cook', email: null, employmentStart: '2026-06-01', employmentEnd: null, badgeId: null })),
  });
  dir = mkdtempSync(join(tmpdir(), 'wfs-login-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('wfs offers the integrator commands login and api', async () => {
  const help = await runWfs(['--help']);
  // src/cli/main.ts lists registerIntegratorCommands (src/integrator/commands.ts) among its command groups.
  assert.match(help.stdout + help.stderr, /\blogin\b[\s\S]*\bapi\b|\bapi\b[\s\S]*\blogin\b/, 'src/cli/main.ts must list registerIntegratorCommands in COMMAND_GROUPS');
});

/** Plays the person at the browser: opens the printed address, logs in; answers where the browser is sent. */
async function browserLogin(url: string, as: Tenant): Promise<URL> {
  const form = await openLoginForm(url);
  assert.equal(form.response.status, 200, form.html);
  const answer = await submitLogin(server, form, { email: as.email, secret: as.secret });
  assert.equal(answer.status, 302);
  return new URL(answer.headers.get('location') ?? '');
}

/**
 * `wfs login --no-browser --json` for `client` into `credentialsFile`. Once the authorize address is
 * printed (and standard error matches `until`), `drive`, if given, plays the person at the browser;
 * it may answer a prompt on standard input. Resolves when both are done.
 */
async function wfsLogin(client: Tenant, credentialsFile: string, args: string[] = [], drive?: (authorizeUrl: string, answer: (line: string) => void) => Promise<void>, until = /./): Promise<WfsRun> {
  let driven: Promise<void> | undefined;
  const run = await runWfs(['login', '--base-url', server.baseUrl, '--client-id', client.clientId, '--client-secret', client.clientSecret, ...args, '--credentials-file', credentialsFile, '--no-browser', '--json'], {}, (stderr, answer) => {
    const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(stderr)?.[1];
    if (url && drive && !driven && until.test(stderr)) driven = drive(url, answer);
  });
  await driven;
  return run;
}

async function logInAt(url: string): Promise<void> {
  const location = await browserLogin(url, tenant);
  assert.equal(location.hostname, '127.0.0.1');
  assert.notEqual(location.port, '', 'the loopback listener\'s own port');
  const landing = await fetch(location);
  assert.equal(landing.status, 200);
  assert.match(await landing.text(), /Logged in/);
}

test('wfs login: browser login with PKCE through a loopback redirect stores the refresh token in a 0600 file; wfs api then calls the API', async () => {
  const credentialsFile = join(dir, 'nested', 'credentials.json');
  const login = await wfsLogin(tenant, credentialsFile, ['--timeout', '20'], async (url) => {
    const params = new URL(url).searchParams;
    assert.equal(params.get('code_challenge_method'), 'S256');
    assert.match(params.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(params.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await logInAt(url);
  });
  assert.equal(login.code, 0, login.stderr);
  assert.deepEqual(lastJson(login), { credentialsFile, baseUrl: server.baseUrl, clientId: tenant.clientId, email: tenant.email, companyId: tenant.companyId });

  assert.equal(statSync(credentialsFile).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'nested')).mode & 0o777, 0o700);
  const stored = JSON.parse(readFileSync(credentialsFile, 'utf8')) as Record<string, string>;
  assert.equal(stored.baseUrl, server.baseUrl);
  assert.equal(stored.clientId, tenant.clientId);
  assert.equal(stored.clientSecret, undefined, 'the client secret is asked for at each login, never stored');
  assert.ok(!readFileSync(credentialsFile, 'utf8').includes(tenant.clientSecret));
  assert.match(stored.refreshToken ?? '', /^[\w-]+\.[\w-]+\.[\w-]+$/);

  const configuration = await runWfs(['api', 'GET', '/api/v1/company/configuration', '--credentials-file', credentialsFile]);
  assert.equal(configuration.code, 0, configuration.stderr);
  const body = JSON.parse(configuration.stdout) as { company: { id: string; name: string }; departments: { id: string; code: string }[] };
  assert.equal(body.company.id, tenant.companyId);
  assert.equal(body.company.name, 'Integrator');
  assert.equal(body.departments[0]?.code, 'KIT');

  const users = await runWfs(['api', 'GET', '/api/v1/company/users', '--from', '2026-01-01', '--to', '2026-01-31', '--credentials-file', credentialsFile, '--json']);
  assert.equal(users.code, 0, users.stderr);
  assert.deepEqual(lastJson(users), { data: [], nextCursor: null }, 'nobody employed in January 2026');

  const everyone = await runWfs(['api', 'GET', '/api/v1/company/users', '--limit', '2', '--all', '--credentials-file', credentialsFile, '--json']);
  assert.equal(everyone.code, 0, everyone.stderr);
  const all = lastJson(everyone) as { data: { firstName: string }[]; nextCursor: null };
  assert.deepEqual(all.data.map((user) => user.firstName).sort(), ['Ann', 'Ben', 'Cas'], 'both pages of two');
  assert.equal(all.nextCursor, null);

  const batch = join(dir, 'revenue.json');
  writeFileSync(batch, JSON.stringify({ items: [{ departmentId: body.departments[0]?.id, date: '2026-11-20', kind: 'realised', amount: 1234.5 }] }));
  const revenue = await runWfs(['api', 'POST', '/api/v1/company/revenue', '--data', `@${batch}`, '--credentials-file', credentialsFile, '--json']);
  assert.equal(revenue.code, 0, revenue.stderr);
  assert.deepEqual(lastJson(revenue), { received: 1, created: 1, updated: 0, unchanged: 0 });

  const typo = await runWfs(['api', 'GET', '/api/v1/company/users', '--query', 'form=2026-01-01', '--credentials-file', credentialsFile, '--json']);
  assert.equal(typo.code, 1);
  const failure = lastJson(typo);
  assert.match(String(failure.error), /^400 validation_failed: /);
  assert.deepEqual(failure.errors, [{ path: '/querystring/form', message: 'unknown query parameter "form"' }]);
});

test('wfs login reports a refused login (error on the redirect) and stores nothing', async () => {
  const credentialsFile = join(dir, 'refused.json');
  const login = await wfsLogin(tenant, credentialsFile, ['--timeout', '20'], async (url) => {
    // The person's browser comes back with an error instead of a code (RFC 6749 §4.1.2.1).
    const params = new URL(url).searchParams;
    const back = new URL(params.get('redirect_uri') ?? '');
    back.search = new URLSearchParams({ error: 'access_denied', error_description: 'the user said no', state: params.get('state') ?? '' }).toString();
    await (await fetch(back)).body?.cancel();
  });
  assert.equal(login.code, 1);
  assert.deepEqual(lastJson(login), { error: 'Login failed: access_denied (the user said no).' });
  assert.throws(() => statSync(credentialsFile));
});

test('wfs api without a login says to log in', async () => {
  const run = await runWfs(['api', 'GET', '/api/v1/company/configuration', '--credentials-file', join(dir, 'missing.json'), '--json']);
  assert.equal(run.code, 1);
  assert.match(String(lastJson(run).error), /run "wfs login" first/);
});

test('wfs login with a page as redirect URI (the demo\'s /demo/callback, on a port) takes the address the browser ended on', async () => {
  const page = `${server.baseUrl}/demo/callback`;
  const web = await provisionTenant(server.ctx, { name: 'Web', redirectUris: [page] });
  const credentialsFile = join(dir, 'pasted.json');
  const login = await wfsLogin(web, credentialsFile, ['--redirect-uri', page], async (url, answer) => {
    const location = await browserLogin(url, web);
    assert.equal(location.origin + location.pathname, page);
    answer(location.toString());
  }, /paste the address/);
  assert.equal(login.code, 0, login.stderr);
  assert.equal(lastJson(login).companyId, web.companyId);
  const configuration = await runWfs(['api', 'GET', '/api/v1/company/configuration', '--credentials-file', credentialsFile, '--json']);
  assert.equal((lastJson(configuration).company as { name: string }).name, 'Web');
});

test('wfs login fails at once when the API Client has no such redirect URI registered', async () => {
  const web = await provisionTenant(server.ctx, { name: 'NoLoopback', redirectUris: ['https://app.example.com/callback'] });
  const started = Date.now();
  const login = await wfsLogin(web, join(dir, 'none.json'));
  assert.equal(login.code, 1);
  assert.match(String(lastJson(login).error), /http:\/\/127\.0\.0\.1\/callback is not registered on the API Client/);
  assert.ok(Date.now() - started < 10_000);
});
