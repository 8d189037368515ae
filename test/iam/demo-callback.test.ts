// The demo client's redirect URI (contract: operator side): a page of the service showing the code, the state and
// the exact command that exchanges the code, under the same strict headers as the login page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { loginForCode, postToken } from './helpers.ts';
import { unescapeHtml } from '../support/login.ts';

const server = useTestServer({}, { inProcess: true });

test('the callback page shows code, state and a curl command that works once the secret is filled in', async () => {
  const tenant = await provisionTenant(server.ctx, { redirectUris: [`${server.baseUrl}/demo/callback`] });
  const location = await loginForCode(server, tenant, { state: `it's <b>bold</b>` });
  const response = await server.fetch(location);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'.*frame-ancestors 'none'/);
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const html = await response.text();
  assert.ok(html.includes('it&#39;s &lt;b&gt;bold&lt;/b&gt;'), 'the state is shown escaped');
  assert.doesNotMatch(html, /<b>bold/);
  const command = unescapeHtml(/<pre id="command">([\s\S]*?)<\/pre>/.exec(html)?.[1] ?? '');
  assert.ok(command.startsWith(`curl -s '${server.config.issuer}/oauth/token' -H 'Content-Type: application/json'`), command);
  const body = JSON.parse(/-d '(.*)'$/s.exec(command)?.[1] ?? '{}') as Record<string, string>;
  assert.deepEqual(body, {
    grant_type: 'authorization_code',
    code: location.searchParams.get('code') ?? '',
    redirect_uri: `${server.baseUrl}/demo/callback`,
    client_id: tenant.clientId,
    client_secret: '<CLIENT_SECRET>',
    audience: 'service-api',
  });
  assert.equal((await postToken(server, { ...body, client_secret: tenant.clientSecret })).status, 200);
});

test('the callback page reports an authorization error and rejects unknown parameters', async () => {
  const failed = await server.fetch(`${server.baseUrl}/demo/callback?error=invalid_scope&error_description=scope%20must%20be%20all&state=s1`);
  assert.equal(failed.status, 200);
  assert.match(await failed.text(), /role="alert">invalid_scope: scope must be all</);
  const unknown = await server.fetch(`${server.baseUrl}/demo/callback?code=abc`);
  assert.match(await unknown.text(), /This code is not known to the service/);
  const typo = await server.fetch(`${server.baseUrl}/demo/callback?cdoe=abc`);
  assert.equal(typo.status, 400);
  assert.match(typo.headers.get('content-type') ?? '', /^text\/html/);
});
