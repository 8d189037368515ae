// A real browser (headless Chromium) walks the login: open the authorize URL, fill Email and Secret
// by their labels, submit, and land on the demo callback page with code and state; the command shown
// there exchanges the code. Proves the form works without JavaScript help and under its own CSP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { useBrowser } from '../support/browser.ts';
import { freePort, useTestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { authorizeUrl, defaultParams, postToken } from './helpers.ts';

const server = useTestServer();
const browser = useBrowser();

test('a browser signs in on the login page and arrives at the redirect URI with code and state', async () => {
  const tenant = await provisionTenant(server.ctx, { name: 'Browser', redirectUris: [`${server.baseUrl}/demo/callback`] });
  const state = 'browser state & ✓ "quoted" <tag>';
  const page = await browser.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  try {
    const response = await page.goto(authorizeUrl(server, defaultParams(tenant, { state })));
    assert.equal(response?.status(), 200);
    await page.getByLabel('Email').fill(tenant.email);
    await page.getByLabel('Secret').fill(tenant.secret);
    await Promise.all([page.waitForURL(/\/demo\/callback\?/), page.getByRole('button', { name: 'Sign in' }).click()]);

    const arrived = new URL(page.url());
    assert.equal(arrived.searchParams.get('state'), state);
    assert.equal(arrived.searchParams.get('iss'), server.config.issuer);
    const code = arrived.searchParams.get('code') ?? '';
    assert.match(code, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(await page.locator('h1').textContent(), 'Authorization code received');
    const command = (await page.locator('#command').textContent()) ?? '';
    assert.match(command, /<CLIENT_SECRET>/);
    assert.deepEqual(cspViolations, [], 'the pages run under their CSP without violations');

    // The command's JSON body, with the secret filled in, exchanges the code.
    const body = JSON.parse(/-d '(.*)'$/s.exec(command)?.[1] ?? '{}') as Record<string, string>;
    assert.equal(body.code, code);
    assert.equal(body.client_id, tenant.clientId);
    const exchange = await postToken(server, { ...body, client_secret: tenant.clientSecret });
    assert.equal(exchange.status, 200);
  } finally {
    await page.close();
  }
});

test('a browser that types a wrong secret sees the form again with a generic message', async () => {
  const tenant = await provisionTenant(server.ctx, { redirectUris: [`${server.baseUrl}/demo/callback`] });
  const page = await browser.newPage();
  try {
    await page.goto(authorizeUrl(server, defaultParams(tenant)));
    await page.getByLabel('Email').fill(tenant.email);
    await page.getByLabel('Secret').fill('not-the-secret');
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Sign in' }).click()]);
    assert.equal(response.status(), 401);
    await page.waitForLoadState();
    assert.equal(await page.getByRole('alert').textContent(), 'The email or secret is not correct.');
    assert.equal(await page.getByLabel('Email').inputValue(), tenant.email);
    assert.equal(await page.getByLabel('Secret').inputValue(), '');
  } finally {
    await page.close();
  }
});

test('a browser is redirected to a loopback listener on another origin and port (RFC 8252 §7.3)', async () => {
  const tenant = await provisionTenant(server.ctx, { redirectUris: ['http://127.0.0.1/callback'] });
  const port = await freePort();
  const received: string[] = [];
  const listener = createServer((request, response) => {
    received.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
  const page = await browser.newPage();
  try {
    await page.goto(authorizeUrl(server, defaultParams(tenant, { redirect_uri: `http://127.0.0.1:${port}/callback`, state: 'loopback' })));
    await page.getByLabel('Email').fill(tenant.email);
    await page.getByLabel('Secret').fill(tenant.secret);
    await Promise.all([page.waitForURL(`http://127.0.0.1:${port}/callback?**`), page.getByRole('button', { name: 'Sign in' }).click()]);
    const arrived = new URL(received[0] ?? '', `http://127.0.0.1:${port}`);
    assert.equal(arrived.pathname, '/callback');
    assert.equal(arrived.searchParams.get('state'), 'loopback');
    assert.match(arrived.searchParams.get('code') ?? '', /^[A-Za-z0-9_-]{43}$/);
  } finally {
    await page.close();
    await new Promise((resolve) => listener.close(resolve));
  }
});
