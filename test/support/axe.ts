// axe-core in a real page: its source is evaluated through the DevTools protocol (a page's CSP does
// not apply there, so the page under test keeps its strict policy), then run on the whole document.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Asserts axe finds no serious or critical violation on the page as it is now. */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  // A string, evaluated in the page: the test's own types know no DOM.
  const violations = await page.evaluate<Violation[]>('axe.run(document).then((result) => result.violations)');
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(grave.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `axe on ${label}`);
}
