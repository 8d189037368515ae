import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let browser: Browser;
before(async () => {
  server = await startTestServer();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
after(async () => {
  await browser?.close();
  await server.close();
});

test('/docs renders the operations in a real browser from local assets only', async () => {
  const page = await browser.newPage();
  const origins = new Set<string>();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:') origins.add(url.origin);
  });
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });

  const response = await page.goto(`${server.baseUrl}/docs`);
  assert.equal(response?.status(), 200);
  const operation = page.locator('.opblock', { hasText: '/api/v1/company/configuration' });
  await operation.waitFor({ timeout: 15_000 });
  assert.match(await operation.innerText(), /getConfiguration/);
  assert.match(await page.locator('.info .title').innerText(), /Workforce Scheduling Service/);
  await page.locator('.opblock-tag', { hasText: 'company' }).first().waitFor();

  assert.deepEqual([...origins], [server.baseUrl]);
  assert.deepEqual(consoleErrors, []);
  await page.close();
});
