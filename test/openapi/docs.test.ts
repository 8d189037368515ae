import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser } from '../support/browser.ts';
import { useTestServer } from '../support/server.ts';

const server = useTestServer();
const browser = useBrowser();

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
