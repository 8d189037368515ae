// A real browser (headless Chromium) signs in through the organisation's own provider: the email on
// the identifier page, the provider's sign-in form, and back through the service to the client's
// redirect URI — under the pages' CSP (form-action must allow the provider), without JavaScript help.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { useBrowser } from '../support/browser.ts';
import { assertAccessible } from '../support/axe.ts';
import type { TestServer } from '../support/server.ts';
import { codeExchange, type TokenBody } from '../support/login.ts';
import { configurationWith, postToken } from '../iam/helpers.ts';
import type { IdentityProvider } from './identity-provider.ts';
import { clientRequest } from './flow.ts';
import { ssoTenant, startSsoServer, type SsoServer } from './fixtures.ts';

let sso: SsoServer;
let server: TestServer;
let idp: IdentityProvider;
before(async () => {
  sso = await startSsoServer();
  ({ server, idp } = sso);
});
after(() => sso.close());
const browser = useBrowser();

test('a browser signs in through the organisation\'s identity provider and arrives at the client with a code', async () => {
  const sso = await ssoTenant(server, idp, { redirectUris: [`${server.baseUrl}/demo/callback`] });
  const tenant = { ...sso.tenant, redirectUri: `${server.baseUrl}/demo/callback` };
  const authorization = await clientRequest(server.config.authUrl, tenant);
  const page = await browser.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  try {
    assert.equal((await page.goto(authorization.url.href))?.status(), 200);
    assert.equal(await page.getByLabel('Secret').count(), 0, 'identifier first');
    await assertAccessible(page, 'the identifier page');
    await page.getByLabel('Email').fill(sso.user.email);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(idp.issuer)), page.getByRole('button', { name: 'Continue' }).click()]);
    assert.equal(await page.getByLabel('Account').inputValue(), sso.user.email, 'the provider got the email as login_hint');
    await page.getByLabel('Account').fill(sso.user.sub);
    await Promise.all([page.waitForURL(/\/demo\/callback\?/), page.getByRole('button', { name: 'Sign in at the IdP' }).click()]);

    const arrived = new URL(page.url());
    assert.equal(arrived.searchParams.get('state'), authorization.state);
    assert.equal(arrived.searchParams.get('iss'), server.config.issuer);
    assert.deepEqual(cspViolations, [], 'no page broke its CSP (the redirect to the provider is allowed by form-action)');
    const exchanged = await postToken(server, codeExchange(tenant, arrived.searchParams.get('code') ?? '', { code_verifier: authorization.verifier }));
    assert.equal(exchanged.status, 200);
    const tokens = (await exchanged.json()) as TokenBody;
    const claims = decodeJwt(tokens.id_token);
    assert.deepEqual([claims.sub, claims.amr, claims.idp], [sso.user.userId, ['fed'], idp.issuer]);
    assert.equal((await configurationWith(server, tokens.id_token)).status, 200);
  } finally {
    await page.close();
  }
});

test('a browser sees a clear page when no API User matches the provider\'s account', async () => {
  const sso = await ssoTenant(server, idp, { redirectUris: [`${server.baseUrl}/demo/callback`] });
  idp.people.set('nobody-in-browser', { sub: 'nobody-in-browser', email: `nobody@${sso.domain}`, email_verified: true });
  const authorization = await clientRequest(server.config.authUrl, { ...sso.tenant, redirectUri: `${server.baseUrl}/demo/callback` });
  const page = await browser.newPage();
  try {
    await page.goto(authorization.url.href);
    await page.getByLabel('Email').fill(`nobody@${sso.domain}`);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(idp.issuer)), page.getByRole('button', { name: 'Continue' }).click()]);
    await page.getByLabel('Account').fill('nobody-in-browser');
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().includes('/oauth/sso/callback')), page.getByRole('button', { name: 'Sign in at the IdP' }).click()]);
    assert.equal(response.status(), 403);
    await page.waitForLoadState();
    assert.equal(await page.locator('h1').textContent(), 'Sign-in failed');
    assert.match((await page.getByRole('alert').textContent()) ?? '', /no API User of this application matches/);
    await assertAccessible(page, 'the SSO error page');
    assert.ok(await page.getByRole('link', { name: 'Start the sign-in again' }).count());
  } finally {
    await page.close();
  }
});
