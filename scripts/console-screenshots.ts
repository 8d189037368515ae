// `npm run console:screenshots`: regenerates docs/console/*.png, every console page at desktop and
// phone width. It starts the service on a throwaway SQLite database with a demo organisation, walks
// the console in headless Chromium as a new admin would, and photographs each page on the way.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { generate } from 'otplib';
import { loadConfig } from '../src/platform/config.ts';
import { ManualClock } from '../src/platform/clock.ts';
import { closeContext, createContext } from '../src/app/bootstrap.ts';
import { buildApp } from '../src/app/app.ts';
import { seedDemo } from '../src/demo/seed.ts';
import { inviteConsoleUser } from '../src/console/people.ts';

const OUT = fileURLToPath(new URL('../docs/console/', import.meta.url));
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const PORT = 48_000 + Math.floor(Math.random() * 1000);

const dir = mkdtempSync(join(tmpdir(), 'wfs-screens-'));
// Webhooks go to a receiver on this machine (answering 204), which only WEBHOOK_ALLOW_INSECURE admits.
const config = loadConfig({ PORT: String(PORT), DATABASE_URL: `sqlite:${join(dir, 'wfs.db')}`, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_INSECURE: '1' });
const receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()));
await new Promise<void>((resolve) => receiver.listen(PORT + 1, '127.0.0.1', resolve));
const clock = new ManualClock(Date.parse('2026-11-25T09:30:00Z'));
const ctx = await createContext(config, { clock });
const app = await buildApp(ctx, { logger: false });
await app.listen({ port: PORT, host: '127.0.0.1' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

async function shoot(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: join(OUT, `${name}-${size}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
  process.stdout.write(`docs/console/${name}-{desktop,phone}.png\n`);
}

async function click(page: Page, name: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name, exact: true }).click()]);
}

try {
  const demo = await seedDemo(ctx.db, config, { seed: 1, now: clock.now() });
  const email = 'anna.admin@demo.example';
  const password = 'a demo password for the console';
  const { inviteUrl } = await inviteConsoleUser(ctx.db, { organisationId: demo.organisationId, email, role: 'admin', invitedBy: null }, config.authUrl, clock.now());
  const page = await browser.newPage({ viewport: VIEWPORTS.desktop });

  await page.goto(inviteUrl);
  await shoot(page, '01-invitation');
  await page.getByLabel('Password').fill(password);
  await click(page, 'Continue');
  await shoot(page, '02-authenticator');
  const secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').trim();
  const code = () => generate({ secret, epoch: Math.floor(clock.now() / 1000) });
  await page.getByLabel('Code').fill(await code());
  await click(page, 'Finish setup');
  await click(page, 'Sign out');
  await shoot(page, '03-sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await click(page, 'Continue');
  await shoot(page, '04-sign-in-code');
  clock.advance(30_000);
  await page.getByLabel('Code').fill(await code());
  await click(page, 'Sign in');
  await shoot(page, '05-organisation');

  await page.goto(`${config.authUrl}/console/companies/${demo.companyId}`);
  await shoot(page, '06-company-clients');
  await page.getByLabel('Name').fill('Payroll export');
  await page.getByLabel('Redirect URIs').fill('https://payroll.example.com/oauth/callback');
  await click(page, 'Create client');
  await shoot(page, '07-client-created');
  await page.goto(`${config.authUrl}/console/clients/${demo.clientId}`);
  await page.getByLabel('Reason').fill('Our nightly export runs without a person present.');
  await click(page, 'Request grant');
  await shoot(page, '08-client');
  await page.goto(`${config.authUrl}/console/clients/${demo.clientId}/users`);
  await shoot(page, '09-api-users');
  await page.getByLabel('Email').fill('export.robot@demo.example');
  await click(page, 'Create user');
  await shoot(page, '10-user-created');
  await page.goto(`${config.authUrl}/console/console-users`);
  await shoot(page, '11-console-users');
  await page.goto(`${config.authUrl}/console/audit`);
  await shoot(page, '12-audit-log');
  await page.goto(`${config.authUrl}/console/step-up?next=/console`);
  await shoot(page, '13-step-up');

  await page.goto(`${config.authUrl}/console/companies/${demo.companyId}/webhooks`);
  await page.getByLabel('URL').fill(`http://127.0.0.1:${PORT + 1}/wfs/hooks`);
  await page.getByLabel('shift.created').check();
  await page.getByLabel('shift.updated').check();
  await page.getByLabel('Description').fill('Payroll: shifts');
  await shoot(page, '14-webhooks');
  await click(page, 'Add endpoint');
  await shoot(page, '15-webhook-created');
  await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Go to the endpoint' }).click()]);
  await click(page, 'Send a test message');
  for (let tries = 0; tries < 50 && (await page.getByTestId('delivery-status').count()) === 0; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await page.reload();
  }
  await shoot(page, '16-webhook-endpoint');
} finally {
  receiver.close();
  await browser.close();
  await app.close();
  await closeContext(ctx);
  rmSync(dir, { recursive: true, force: true });
}
