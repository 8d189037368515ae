// The reference page at /docs (Scalar) in a real browser: it renders the service's own name, lists
// the operations, loads nothing from another origin, and a call made from the page with an ID token
// succeeds — opened from 127.0.0.1 although BASE_URL says localhost. A person logs in from the page
// too (authorization code with PKCE, in a popup, through the demo's API Client), on either host name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { useBrowser } from '../support/browser.ts';
import { useCompanyServer } from '../support/company.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { referenceRedirectUri } from '../../src/platform/reference-page.ts';

const company = useCompanyServer();
const browser = useBrowser();

test('/docs answers HTML with a CSP whose script nonce is fresh on every request', async () => {
  const nonces = [];
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${company.server.baseUrl}/docs`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /connect-src 'self'/);
    const html = await response.text();
    for (const script of html.match(/<script[^>]*>/g) ?? []) assert.ok(script.includes(`nonce="${nonce}"`), script);
    assert.doesNotMatch(html, /https?:\/\/(?!127\.0\.0\.1|localhost)/, 'no foreign URL in the page');
    nonces.push(nonce);
  }
  assert.notEqual(nonces[0], nonces[1]);
});

test('the redirect URI an API Client registers for the page is the page itself (its route writes the path out)', async () => {
  const response = await fetch(referenceRedirectUri(company.server.baseUrl));
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
});

test('/docs renders the operations and calls the API from the page, from another host name, on local assets only', async () => {
  const page = await browser.newPage();
  // BASE_URL is http://localhost:<port>; the page must work from whatever host opened it.
  const origin = company.server.baseUrl.replace('localhost', '127.0.0.1');
  const origins = new Set<string>();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:') origins.add(url.origin);
  });
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });

  const response = await page.goto(`${origin}/docs#tag/company/GET/api/v1/company/configuration`);
  assert.equal(response?.status(), 200);
  assert.match(await page.title(), /Workforce Scheduling Service/);
  await page.getByRole('heading', { name: 'Workforce Scheduling Service' }).first().waitFor({ timeout: 30_000 });
  const sidebar = await page.locator('nav, aside').first().innerText();
  for (const tag of ['identity', 'company', 'inbound', 'timeclock']) assert.match(sidebar, new RegExp(tag));
  assert.equal(await page.getByText('Powered by Scalar').isVisible(), false, 'no vendor mark');

  // Just rendered: the same early click as 'Configure oauth' below.
  await clickUntilShown(page.locator('button', { hasText: 'Test Request' }).filter({ hasText: '/api/v1/company/configuration' }), page.getByRole('dialog', { name: 'API Client' }));
  await page.getByPlaceholder('Token').last().fill(company.token);
  const call = page.waitForResponse((answer) => answer.url() === `${origin}/api/v1/company/configuration`);
  await page.getByRole('button', { name: /Send Request/ }).click();
  const answer = await call;
  assert.equal(answer.status(), 200);
  assert.equal(answer.request().headers().authorization, `Bearer ${company.token}`);
  assert.ok(((await answer.json()) as { departments?: unknown }).departments, 'the configuration body');

  assert.deepEqual([...origins], [origin]);
  assert.deepEqual(consoleErrors, []);
  await page.close();
});

test('/docs?client_id= fills in an API Client id, and nothing that is not one', async () => {
  const page = async (clientId: string) => (await fetch(`${company.server.baseUrl}/docs?${new URLSearchParams({ client_id: clientId }).toString()}`)).text();
  assert.match(await page('cli_P7JKxdZrDXk0_aHN1V581Hw'), /"x-scalar-client-id": *"cli_P7JKxdZrDXk0_aHN1V581Hw"/);
  for (const notAnId of ['"},"url":"https://evil.example/x.json', '</script><script>alert(1)</script>', '']) {
    const html = await page(notAnId);
    assert.doesNotMatch(html, /x-scalar-client-id/, notAnId);
    if (notAnId) assert.ok(!html.includes(notAnId), notAnId);
  }
});

/** Messages of a page that tell of a broken page: errors, and CSP violations of any level. */
function watchProblems(page: Page, problems: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(`${page.url()}: ${message.text()}`);
  });
}

/**
 * Clicks `button` until `shown` appears: on a loaded machine the reference page can render its button
 * before its script listens to it, and a click that early opens nothing.
 */
async function clickUntilShown(button: Locator, shown: Locator, deadline = Date.now() + 30_000): Promise<void> {
  for (;;) {
    await button.click({ timeout: Math.max(deadline - Date.now(), 1) });
    try {
      await shown.waitFor({ state: 'attached', timeout: 3_000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

for (const host of ['localhost', '127.0.0.1']) {
  test(`a person logs in from /docs opened as ${host} (the demo client, PKCE, a popup) and a call made from the page succeeds`, async () => {
    const { server } = company;
    const demo = await seedDemo(server.ctx.db, server.config);
    const origin = server.baseUrl.replace('localhost', host);
    const page = await browser.newPage();
    const problems: string[] = [];
    watchProblems(page, problems);
    const origins = new Set<string>();
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    try {
      // The start-up box links the page with the demo client's id filled in.
      await page.goto(`${origin}/docs?client_id=${demo.clientId}#tag/company/GET/api/v1/company/configuration`);
      const introduction = page.getByRole('region', { name: 'Introduction' });
      const configure = page.getByRole('dialog', { name: 'Configure oauth' });
      const field = (label: string) => configure.locator('td', { has: page.locator('label', { hasText: label }) });
      await clickUntilShown(introduction.getByRole('button', { name: 'Configure oauth' }), field('Client ID').locator('[contenteditable]'));
      assert.equal(await field('Client ID').locator('[contenteditable]').innerText(), demo.clientId);
      assert.equal(await field('Redirect URL').locator('[contenteditable]').innerText(), `${origin}/docs`);
      await configure.getByLabel('Client Secret').fill(demo.clientSecret);

      // The login page opens in a popup on AUTH_URL (its form and CSRF cookie live there).
      const [popup] = await Promise.all([page.waitForEvent('popup'), configure.getByRole('button', { name: 'Authorize' }).click()]);
      watchProblems(popup, problems);
      await popup.getByLabel('Email').waitFor();
      const authorize = new URL(popup.url());
      assert.equal(`${authorize.origin}${authorize.pathname}`, `${server.config.authUrl}/oauth/authorize`);
      assert.equal(authorize.searchParams.get('client_id'), demo.clientId);
      assert.equal(authorize.searchParams.get('redirect_uri'), `${origin}/docs`);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorize.searchParams.get('scope'), 'all');
      await popup.getByLabel('Email').fill(demo.userEmail);
      await popup.getByLabel('Secret').fill(demo.userSecret);
      // Back on /docs with the code, the popup closes and the page exchanges the code on its own origin.
      const [exchange] = await Promise.all([
        page.waitForResponse((answer) => answer.url() === `${origin}/api/v1/iam/oauth/token`),
        popup.waitForEvent('close'),
        popup.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      assert.equal(exchange.status(), 200, await exchange.text());
      const sent = new URLSearchParams(exchange.request().postData() ?? '');
      assert.equal(sent.get('grant_type'), 'authorization_code');
      assert.match(sent.get('code_verifier') ?? '', /^[A-Za-z0-9_-]{43,128}$/);
      const basic = Buffer.from((exchange.request().headers().authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      assert.equal(basic, `${demo.clientId}:${demo.clientSecret}`, 'the client authenticates with HTTP Basic');

      // The ID token lands in the idToken field; "Test Request" sends it.
      await page.locator('button', { hasText: 'Test Request' }).filter({ hasText: '/api/v1/company/configuration' }).click();
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url() === `${origin}/api/v1/company/configuration`),
        page.getByRole('button', { name: /Send Request/ }).click(),
      ]);
      assert.equal(answer.status(), 200);
      const token = (answer.request().headers().authorization ?? '').replace(/^Bearer /, '');
      assert.equal(claims(token).azp, demo.clientId);
      assert.equal(claims(token).email, demo.userEmail);
      assert.equal(((await answer.json()) as { company: { id: string } }).company.id, demo.companyId);
      await page.getByRole('dialog', { name: 'API Client' }).getByText('200 OK').waitFor();

      assert.deepEqual([...origins], [origin], 'the page talks to its own origin only');
      // The popup loads /docs?code=… and the opener closes it as soon as it reads the code: when that
      // happens before the popup's own copy of the reference has fetched the document, the popup logs
      // the aborted fetch. That is the closing, not a broken page; everything else still counts.
      const closingPopup = (problem: string) => problem.startsWith(`${origin}/docs?code=`) && /Failed to fetch document/.test(problem);
      assert.deepEqual(problems.filter((problem) => !closingPopup(problem)), []);
    } finally {
      await page.close();
    }
  });
}
