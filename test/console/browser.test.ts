// A new customer walks the console in a real browser (headless Chromium), without help from any
// script of the test: the invitation link, a password, the authenticator (the test computes codes
// from the key the page shows), sign-in, an API Client, an API User — and that user then logs in on
// the authorize page, the code is exchanged for a token and the token calls the API. Then a rotation
// with overlap through the pages, and a webhook endpoint delivering to a receiver on 127.0.0.1 that
// verifies with the `standardwebhooks` package: its test message fails, is retried from the delivery
// log, the secret is rotated, the endpoint disabled and enabled, a period replayed. axe-core checks
// every page on the way; the pages' CSP must hold.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ManualClock } from '../../src/platform/clock.ts';
import { inviteConsoleUser } from '../../src/console/people.ts';
import { useBrowser } from '../support/browser.ts';
import { assertAccessible } from '../support/axe.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { nextStep, totpCode } from '../support/console.ts';
import { configurationStatus } from '../support/http.ts';
import { authorizeUrl, defaultParams, postToken } from '../iam/helpers.ts';
import { eventually } from '../multi-instance/client.ts';
import { useReceivers, verified } from '../webhooks/receiver.ts';

const browser = useBrowser();
const clock = new ManualClock();
let server: TestServer;
let home: Tenant;

before(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_INSECURE: '1' }, { clock });
  home = await provisionTenant(server.ctx, { name: 'Browser Console' });
});
after(() => server.close());

const PASSWORD = 'a walk in the console';
const receiver = useReceivers();

async function newPage(): Promise<{ page: Page; cspViolations: string[] }> {
  const page = await browser.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  return { page, cspViolations };
}

async function click(page: Page, name: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name, exact: true }).click()]);
}

async function text(page: Page, testId: string): Promise<string> {
  return ((await page.getByTestId(testId).textContent()) ?? '').trim();
}

async function clientSecretWorks(clientId: string, clientSecret: string): Promise<boolean> {
  const response = await postToken(server, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  await response.body?.cancel();
  return response.status !== 401;
}

test('invitation → password → TOTP → sign-in → client → user → the user logs in → token → API call; then a rotation with overlap', async () => {
  const email = 'new.admin@customer.example';
  const { inviteUrl } = await inviteConsoleUser(server.ctx.db, { organisationId: home.organisationId, email, role: 'admin', invitedBy: null }, server.config.authUrl, clock.now());
  const { page, cspViolations } = await newPage();
  try {
    await page.goto(inviteUrl);
    await assertAccessible(page, 'invitation');
    await page.getByLabel('Password').fill(PASSWORD);
    await click(page, 'Continue');
    await assertAccessible(page, 'authenticator enrolment');
    const totpSecret = await text(page, 'totp-secret');
    assert.match(await page.getByRole('link', { name: /^otpauth:\/\/totp\// }).getAttribute('href') ?? '', new RegExp(`secret=${totpSecret}`));
    await page.getByLabel('Code').fill(await totpCode(totpSecret, clock));
    await click(page, 'Finish setup');
    assert.equal(new URL(page.url()).pathname, '/console');
    await assertAccessible(page, 'organisation');

    // Sign out, then sign in as a returning person.
    await click(page, 'Sign out');
    assert.equal(new URL(page.url()).pathname, '/console/login');
    await assertAccessible(page, 'sign-in');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await click(page, 'Continue');
    await assertAccessible(page, 'sign-in code');
    nextStep(clock);
    await page.getByLabel('Code').fill(await totpCode(totpSecret, clock));
    await click(page, 'Sign in');
    assert.equal(new URL(page.url()).pathname, '/console');

    // Company → create an API Client.
    await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Browser Console' }).click()]);
    await assertAccessible(page, 'company');
    const redirectUri = `${server.baseUrl}/demo/callback`;
    await page.getByLabel('Name').fill('Browser integration');
    await page.getByLabel('Redirect URIs').fill(`${redirectUri}\nhttp://127.0.0.1/callback`);
    await click(page, 'Create client');
    await assertAccessible(page, 'client created');
    const clientId = await text(page, 'client-id');
    const clientSecret = await text(page, 'client-secret');

    // Client → API Users → create one.
    await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Go to the client' }).click()]);
    await assertAccessible(page, 'client');
    await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'API Users of this client' }).click()]);
    await assertAccessible(page, 'API users');
    await page.getByLabel('Email').fill('integration.user@customer.example');
    await click(page, 'Create user');
    await assertAccessible(page, 'user created');
    assert.match(await text(page, 'user-id'), /^usr_/);
    const userEmail = await text(page, 'user-email');
    const userSecret = await text(page, 'user-secret');

    // The new API User logs in on the authorize page of the new client, and the code becomes a token.
    const tenant: Tenant = { ...home, clientId, clientSecret, userId: '', email: userEmail, secret: userSecret, redirectUri };
    await page.goto(authorizeUrl(server, defaultParams(tenant, { state: 'console-walk' })));
    await page.getByLabel('Email').fill(userEmail);
    await page.getByLabel('Secret').fill(userSecret);
    await Promise.all([page.waitForURL(/\/demo\/callback\?/), page.getByRole('button', { name: 'Sign in' }).click()]);
    const code = new URL(page.url()).searchParams.get('code') ?? '';
    const exchange = await postToken(server, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, client_secret: clientSecret });
    assert.equal(exchange.status, 200);
    const { id_token: idToken } = (await exchange.json()) as { id_token: string };
    assert.equal(await configurationStatus(server.baseUrl, idToken), 200);

    // Rotation with overlap through the pages: both secrets work, then the overlap is ended.
    await page.goto(`${server.baseUrl}/console/clients/${clientId}`);
    await page.getByLabel('Old secret keeps working for').selectOption('3600');
    await click(page, 'Rotate secret');
    const rotated = await text(page, 'client-secret');
    assert.ok(await clientSecretWorks(clientId, clientSecret));
    assert.ok(await clientSecretWorks(clientId, rotated));
    await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Go to the client' }).click()]);
    await click(page, 'End the overlap now');
    assert.ok(!(await clientSecretWorks(clientId, clientSecret)));
    assert.ok(await clientSecretWorks(clientId, rotated));
    assert.equal(await configurationStatus(server.baseUrl, idToken), 200, 'a planned rotation revokes nothing');

    await webhookWalk(page);

    // The remaining pages pass axe as well.
    for (const path of ['/console/audit', '/console/console-users', '/console/sso', '/console/step-up?next=/console', '/console/clients/cli_nope']) {
      await page.goto(`${server.baseUrl}${path}`);
      await assertAccessible(page, path);
    }
    assert.deepEqual(cspViolations, [], 'the pages run under their CSP without violations');
  } finally {
    await page.close();
  }
});

/** From the company page: a webhook endpoint added, its first message failed and retried, rotated, switched off and on, a period replayed. */
async function webhookWalk(page: Page): Promise<void> {
  const target = await receiver((index) => ({ status: index === 0 ? 500 : 204 }));
  await page.goto(`${server.baseUrl}/console/companies/${home.companyId}`);
  await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Webhooks' }).click()]);
  await assertAccessible(page, 'webhooks');
  await page.getByLabel('URL').fill(target.url);
  await page.getByLabel('department.created').check();
  await page.getByLabel('Description').fill('Browser receiver');
  await click(page, 'Add endpoint');
  await assertAccessible(page, 'webhook endpoint created');
  const secret = await text(page, 'webhook-secret');
  await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Go to the endpoint' }).click()]);
  await assertAccessible(page, 'webhook endpoint');

  await click(page, 'Send a test message');
  const [failed] = await target.waitFor(1);
  assert.equal(failed?.answered, 500);
  await eventually('the failed attempt is logged', 5000, async () => {
    await page.reload();
    return (await page.getByTestId('delivery-status').allTextContents()).includes('failed');
  });
  await assertAccessible(page, 'delivery log');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: /^Retry/ }).click()]);
  const [, retried] = await target.waitFor(2);
  assert.equal(retried?.id, failed?.id);
  assert.equal((verified(secret, retried) as { type: string }).type, 'webhook.test', 'standardwebhooks verifies the retried message');

  await click(page, 'Rotate secret');
  await assertAccessible(page, 'webhook secret rotated');
  const rotated = await text(page, 'webhook-secret');
  await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Go to the endpoint' }).click()]);
  await click(page, 'Disable endpoint');
  assert.equal(await text(page, 'webhook-state'), 'disabled');
  await click(page, 'Enable endpoint');
  assert.equal(await text(page, 'webhook-state'), 'enabled');
  await click(page, 'Send a test message');
  const [, , third] = await target.waitFor(3);
  assert.doesNotThrow(() => verified(rotated, third!));
  assert.doesNotThrow(() => verified(secret, third!), 'the old secret signs beside the new one');

  await page.getByLabel('From').fill('2000-01-01T00:00');
  await page.getByLabel('To').fill('2100-01-01T00:00');
  await click(page, 'Replay');
  await assertAccessible(page, 'period replayed');
  assert.match((await page.getByRole('status').textContent()) ?? '', /messages? of the period queued again/);
}
