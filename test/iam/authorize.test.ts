// The authorize endpoint's rules (contract: identity and access, "Authorize"): which requests get an error page and
// which a redirect, redirect-URI matching, scope, PKCE parameters, state byte for byte, the login
// form (labels, CSRF, headers), credentials and disabled clients/users, and the audit log.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { switchClient, switchUser } from '../../src/admin/operations.ts';
import { authorizeUrl, defaultParams, loginForCode, submitLogin } from './helpers.ts';
import { openLoginForm } from '../support/login.ts';

let server: TestServer;
let tenant: Tenant;
before(async () => {
  server = await startTestServer({}, { inProcess: true });
  tenant = await provisionTenant(server.ctx, { redirectUris: ['https://app.example.com/callback', 'https://app.example.com/cb?tenant=a%20b', 'http://127.0.0.1/loop', 'http://[::1]/v6', 'http://localhost/local'] });
});
after(() => server.close());

async function expectErrorPage(params: Record<string, string>, message: RegExp): Promise<void> {
  const response = await server.fetch(authorizeUrl(server, params), { redirect: 'manual' });
  assert.equal(response.status, 400);
  assert.equal(response.headers.get('location'), null, 'never redirected');
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.match(await response.text(), message);
}

async function expectRedirectError(params: Record<string, string>, error: string): Promise<URL> {
  const response = await server.fetch(authorizeUrl(server, params), { redirect: 'manual' });
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get('location') ?? '');
  assert.equal(location.searchParams.get('error'), error);
  assert.ok(location.searchParams.get('error_description'));
  assert.equal(location.searchParams.get('state'), params.state);
  assert.equal(location.searchParams.get('iss'), server.config.issuer);
  assert.equal(location.searchParams.get('code'), null);
  return location;
}

test('the login page is an HTML form with labelled email and secret inputs, one button and strict headers', async () => {
  const form = await openLoginForm(authorizeUrl(server, defaultParams(tenant)));
  assert.equal(form.response.status, 200);
  const headers = form.response.headers;
  assert.match(headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  const csp = headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /form-action 'self' http:\/\/localhost:\d+ https:\/\/app\.example\.com/);
  assert.equal(headers.get('cache-control'), 'no-store');
  assert.equal(headers.get('x-frame-options'), 'DENY');
  assert.equal(headers.get('referrer-policy'), 'no-referrer');
  assert.equal(headers.get('access-control-allow-origin'), null);
  assert.match(form.html, /<label for="email">Email<\/label>\s*<input id="email" name="email"/);
  assert.match(form.html, /<label for="secret">Secret<\/label>\s*<input id="secret" name="secret" type="password"/);
  assert.equal(form.html.match(/<button/g)?.length, 1);
  assert.doesNotMatch(form.html, /<script/);
  assert.deepEqual(Object.keys(form.fields).sort(), ['client_id', 'csrf_token', 'redirect_uri', 'response_type', 'scope', 'state']);
  assert.match(form.cookie, /^wfs_login_csrf=/);
  assert.match(headers.get('set-cookie') ?? '', /HttpOnly/i);
  assert.match(headers.get('set-cookie') ?? '', /SameSite=Lax/i);
});

test('an unknown client_id, a missing or unregistered redirect_uri get a 400 page and no redirect', async () => {
  await expectErrorPage(defaultParams(tenant, { client_id: 'cli_unknown' }), /client_id is unknown/);
  const { redirect_uri: _omitted, ...withoutRedirect } = defaultParams(tenant);
  await expectErrorPage(withoutRedirect, /no redirect_uri/);
  for (const lookalike of [
    'https://app.example.com/callback/',
    'https://app.example.com/callback?x=1',
    'https://app.example.com/Callback',
    'https://app.example.com.evil.example/callback',
    'http://app.example.com/callback',
    'https://app.example.com:443/callback',
    'https://evil.example/callback',
    'http://127.0.0.1.evil.example/loop',
    'http://127.0.0.1:8080@evil.example/loop',
    'http://127.0.0.1:8080/loop/../other',
    'http://127.0.0.1:8080/other',
    'http://localhost:1234/loop',
    'https://127.0.0.1:8080/loop',
  ]) {
    await expectErrorPage(defaultParams(tenant, { redirect_uri: lookalike }), /redirect_uri is not registered/);
  }
  await expectErrorPage(defaultParams(tenant, { redirect_uri: 'https://app.example.com/callback#frag' }), /redirect_uri is malformed: it must not contain a fragment/);
});

test('a malformed redirect_uri (port 99999, 0 or 01, …) gets the 400 page, never a redirect, whatever else is wrong', async () => {
  for (const malformed of [
    'http://127.0.0.1:99999/loop',
    'http://127.0.0.1:65536/loop',
    'http://127.0.0.1:0/loop',
    'http://127.0.0.1:01/loop',
    'http://127.0.0.1:/loop',
    'http://[::1]:99999/v6',
    'http://localhost:00080/local',
    'http://[::1/v6',
    'https://app.example.com/call back',
    'https://app.example.com/callback\n',
  ]) {
    for (const extra of [{}, { scope: 'bad' }, { response_type: 'token' }, { code_challenge_method: 'plain' }] as Record<string, string>[]) {
      await expectErrorPage(defaultParams(tenant, { redirect_uri: malformed, ...extra }), /redirect_uri is (malformed|not registered)/);
    }
  }
  const port = await server.fetch(authorizeUrl(server, defaultParams(tenant, { redirect_uri: 'http://127.0.0.1:99999/loop' })), { redirect: 'manual' });
  assert.match(await port.text(), /redirect_uri is malformed: it must have a port from 1 to 65535/);
});

test('a malformed redirect_uri in a submitted form gets the 400 page too, never a redirect', async () => {
  const form = await openLoginForm(authorizeUrl(server, defaultParams(tenant)));
  for (const redirect_uri of ['http://127.0.0.1:99999/loop', 'http://127.0.0.1:0/loop']) {
    const response = await submitLogin(server, form, { email: tenant.email, secret: tenant.secret }, { redirect_uri });
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('location'), null);
    assert.match(await response.text(), /redirect_uri is malformed/);
  }
});

test('a disabled client gets the error page; a disabled user cannot log in', async () => {
  const other = await provisionTenant(server.ctx);
  await switchClient(server.ctx.db, other.clientId, true);
  await expectErrorPage(defaultParams(other), /client is disabled/);

  const third = await provisionTenant(server.ctx);
  await switchUser(server.ctx.db, third.userId, true);
  const form = await openLoginForm(authorizeUrl(server, defaultParams(third)));
  const response = await submitLogin(server, form, { email: third.email, secret: third.secret });
  assert.equal(response.status, 401);
  assert.match(await response.text(), /The email or secret is not correct\./);
});

test('loopback redirect URIs match on any port, with the same host and path', async () => {
  for (const uri of ['http://127.0.0.1:51234/loop', 'http://[::1]:8080/v6', 'http://localhost:3000/local', 'http://127.0.0.1/loop']) {
    const location = await loginForCode(server, tenant, { redirect_uri: uri });
    assert.equal(`${location.origin}${location.pathname}`, uri);
    assert.ok(location.searchParams.get('code'));
  }
});

test('other bad parameters redirect with error, error_description, state and iss', async () => {
  await expectRedirectError(defaultParams(tenant, { response_type: 'token' }), 'unsupported_response_type');
  const { response_type: _r, ...noResponseType } = defaultParams(tenant);
  await expectRedirectError(noResponseType, 'invalid_request');
  for (const scope of ['read', 'all read', 'openid', 'all all', '', 'ALL']) {
    await expectRedirectError(defaultParams(tenant, { scope }), 'invalid_scope');
  }
  const { scope: _s, ...noScope } = defaultParams(tenant);
  await expectRedirectError(noScope, 'invalid_scope');
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  await expectRedirectError(defaultParams(tenant, { code_challenge: challenge, code_challenge_method: 'plain' }), 'invalid_request');
  await expectRedirectError(defaultParams(tenant, { code_challenge: challenge }), 'invalid_request');
  await expectRedirectError(defaultParams(tenant, { code_challenge: 'too-short', code_challenge_method: 'S256' }), 'invalid_request');
  await expectRedirectError(defaultParams(tenant, { code_challenge_method: 'S256' }), 'invalid_request');
});

test('scope "all openid" in either order is accepted', async () => {
  for (const scope of ['all openid', 'openid all']) {
    const form = await openLoginForm(authorizeUrl(server, defaultParams(tenant, { scope })));
    assert.equal(form.response.status, 200);
  }
});

test('state comes back byte for byte, odd characters included, and the registered query is kept', async () => {
  const state = ' a+b%20c&d=e?f#g/h\\i "j" <k> \'l\' ✓ é 日本 \u{1F600} ';
  const location = await loginForCode(server, tenant, { state, redirect_uri: 'https://app.example.com/cb?tenant=a%20b' });
  assert.equal(location.searchParams.get('state'), state);
  assert.equal(location.searchParams.get('iss'), server.config.issuer);
  assert.ok(location.href.startsWith('https://app.example.com/cb?tenant=a%20b&code='), location.href);
  const errorLocation = await expectRedirectError(defaultParams(tenant, { state, scope: 'nope' }), 'invalid_scope');
  assert.equal(errorLocation.searchParams.get('state'), state);
});

test('without state the redirect carries no state', async () => {
  const { state: _omitted, ...params } = defaultParams(tenant);
  const form = await openLoginForm(authorizeUrl(server, params));
  const response = await submitLogin(server, form, { email: tenant.email, secret: tenant.secret });
  const location = new URL(response.headers.get('location') ?? '');
  assert.equal(location.searchParams.has('state'), false);
  assert.ok(location.searchParams.get('code'));
});

test('a missing or wrong CSRF token is refused with the form again (403), and no code', async () => {
  const form = await openLoginForm(authorizeUrl(server, defaultParams(tenant)));
  const withoutCookie = await submitLogin(server, { ...form, cookie: '' }, { email: tenant.email, secret: tenant.secret });
  assert.equal(withoutCookie.status, 403);
  assert.equal(withoutCookie.headers.get('location'), null);
  assert.match(await withoutCookie.text(), /This sign-in form has expired/);
  const wrongField = await submitLogin(server, form, { email: tenant.email, secret: tenant.secret }, { csrf_token: 'A'.repeat(43) });
  assert.equal(wrongField.status, 403);
  const { csrf_token: _omitted, ...fields } = form.fields;
  const withoutField = await submitLogin(server, { ...form, fields }, { email: tenant.email, secret: tenant.secret });
  assert.equal(withoutField.status, 403);
  const otherCookie = await openLoginForm(authorizeUrl(server, defaultParams(tenant)));
  const mixed = await submitLogin(server, { ...form, cookie: otherCookie.cookie }, { email: tenant.email, secret: tenant.secret });
  assert.equal(mixed.status, 403, 'a field from one browser does not fit the cookie of another');
  const good = await submitLogin(server, form, { email: tenant.email, secret: tenant.secret });
  assert.equal(good.status, 302);
});

test('wrong credentials, or the user of another client, re-show the form with a generic message (401)', async () => {
  const other = await provisionTenant(server.ctx);
  const form = await openLoginForm(authorizeUrl(server, defaultParams(tenant)));
  for (const credentials of [
    { email: tenant.email, secret: 'wrong' },
    { email: 'nobody@example.com', secret: tenant.secret },
    { email: other.email, secret: other.secret },
  ]) {
    const response = await submitLogin(server, form, credentials);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('location'), null);
    const html = await response.text();
    assert.match(html, /role="alert">The email or secret is not correct\.</);
    assert.match(html, /name="secret" type="password" autocomplete="current-password" required>/, 'the secret is never echoed');
  }
  const ok = await submitLogin(server, form, { email: `  ${tenant.email.toUpperCase()} `, secret: tenant.secret });
  assert.equal(ok.status, 302, 'the email is matched case-insensitively');
});

test('the hidden inputs are re-checked on submission: a tampered redirect_uri is refused', async () => {
  const form = await openLoginForm(authorizeUrl(server, defaultParams(tenant)));
  const response = await submitLogin(server, form, { email: tenant.email, secret: tenant.secret }, { redirect_uri: 'https://evil.example/callback' });
  assert.equal(response.status, 400);
  assert.equal(response.headers.get('location'), null);
});

test('logins are written to the audit log with client, user, address and outcome, never a secret', async () => {
  const audited = await provisionTenant(server.ctx);
  const form = await openLoginForm(authorizeUrl(server, defaultParams(audited)));
  await submitLogin(server, form, { email: audited.email, secret: 'wrong-secret-value' });
  await submitLogin(server, form, { email: audited.email, secret: audited.secret });
  const rows = await server.ctx.db.selectFrom('audit_log').selectAll().where('client_id', '=', audited.clientId).where('event', '!=', 'operator_change').orderBy('at').execute();
  assert.deepEqual(
    rows.map((r) => [r.event, r.outcome, r.user_id, r.address, r.detail]),
    [
      ['login', 'failure', audited.userId, '127.0.0.1', 'wrong_secret'],
      ['login', 'success', audited.userId, '127.0.0.1', null],
    ],
  );
  const everything = JSON.stringify(await server.ctx.db.selectFrom('audit_log').selectAll().execute());
  assert.ok(!everything.includes(audited.secret) && !everything.includes('wrong-secret-value') && !everything.includes(audited.clientSecret));
});

test('with AUTH_URL apart from BASE_URL, discovery, the form action and the CSRF cookie use the public login address', async () => {
  const separate = await startTestServer({ AUTH_URL: 'https://login.example.com/wfs' }, { inProcess: true });
  try {
    const discovery = (await (await separate.fetch(`${separate.config.issuer}/.well-known/openid-configuration`)).json()) as { authorization_endpoint: string };
    assert.equal(discovery.authorization_endpoint, 'https://login.example.com/wfs/oauth/authorize');
    const local = await provisionTenant(separate.ctx);
    // The proxy in front of AUTH_URL forwards to /oauth/authorize on this same server.
    const form = await openLoginForm(`${separate.baseUrl}/oauth/authorize?${new URLSearchParams(defaultParams(local)).toString()}`);
    assert.equal(form.response.status, 200);
    assert.match(form.html, /<form method="post" action="https:\/\/login\.example\.com\/wfs\/oauth\/authorize">/);
    // Over https a __Host- cookie: from this origin only, so a sibling subdomain cannot plant one.
    const cookie = form.response.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^__Host-wfs_login_csrf=[^;]+; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    assert.match(form.response.headers.get('content-security-policy') ?? '', /form-action 'self' https:\/\/login\.example\.com https:\/\/app\.example\.com;/);
    const response = await separate.fetch(`${separate.baseUrl}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
      body: new URLSearchParams({ ...form.fields, email: local.email, secret: local.secret }),
    });
    assert.equal(response.status, 302);
    assert.equal(new URL(response.headers.get('location') ?? '').searchParams.get('iss'), separate.config.issuer);
  } finally {
    await separate.close();
  }
});
