// Headless Chromium for the tests that need a real browser (login page, /docs). The flags keep it
// from reaching the network on its own (updates, sync, QUIC) so a test sees only its own requests.
import { after, before } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** One browser for the calling file (or suite): launched before its tests, closed after them. */
export function useBrowser(): { newPage(): Promise<Page> } {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchBrowser();
  });
  after(() => browser?.close());
  return {
    newPage: () => {
      if (!browser) throw new Error('the browser is not launched yet: call newPage() inside a test');
      return browser.newPage();
    },
  };
}
