// The reference page at /docs (Scalar) in a real browser: it renders the service's own name, lists
// the operations, loads nothing from another origin, and a call made from the page with an ID token
// succeeds — opened from 127.0.0.1 although BASE_URL says localhost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser } from '../support/browser.ts';
import { useCompanyServer } from '../support/company.ts';

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

  await page.locator('button', { hasText: 'Test Request' }).filter({ hasText: '/api/v1/company/configuration' }).click();
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
