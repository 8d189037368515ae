// The route table of docs/architecture.md is the app's: every route the app registers has a row, every
// row a route, and the file a row names holds the route's literal full path (so a search finds it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/platform/config.ts';
import { closeContext, createContext } from '../../src/app/bootstrap.ts';
import { buildApp } from '../../src/app/app.ts';
import { migratedDatabase } from '../support/database.ts';

const ROOT = new URL('../../', import.meta.url);
/** method | path | the defining file, optionally followed by a note (`… (checks: login-submission.ts)`) | … */
const ROW = /^\| `([A-Z]+)` \| `([^`]+)` \| `([^`]+)`[^|]*\|/;

interface Row {
  method: string;
  path: string;
  file: string;
}

function documentedRoutes(): Row[] {
  const text = readFileSync(new URL('docs/architecture.md', ROOT), 'utf8');
  const section = text.slice(text.indexOf('## Routes'));
  const table = section.slice(0, section.indexOf('\n## ', 1));
  return table.split('\n').flatMap((line) => {
    const match = ROW.exec(line);
    return match ? [{ method: match[1]!, path: match[2]!, file: match[3]! }] : [];
  });
}

/** What the app registers, as the table writes it: HEAD beside its GET left out, the reference page's assets as one `/docs/*`. */
async function registeredRoutes(): Promise<string[]> {
  const database = await migratedDatabase();
  const ctx = await createContext(loadConfig({ DATABASE_URL: database.url }), { poll: false });
  const routes = new Set<string>();
  try {
    const app = await buildApp(ctx, { logger: false, onRoute: ({ method, url }) => {
      if (method !== 'HEAD') routes.add(`${method} ${url === '/docs' || url.startsWith('/docs/') ? '/docs/*' : url}`);
    } });
    await app.close();
  } finally {
    await closeContext(ctx);
    await database.drop();
  }
  return [...routes].sort();
}

test('the route table in docs/architecture.md lists exactly the routes the app registers', async () => {
  const documented = documentedRoutes().map((row) => `${row.method} ${row.path}`).sort();
  assert.ok(documented.length > 30, 'the table was found');
  assert.deepEqual(documented, await registeredRoutes(), 'add (or remove) the route\'s row in the "Routes" table of docs/architecture.md');
});

test('each route is defined by its literal full path in the file the table names', () => {
  for (const row of documentedRoutes()) {
    const source = readFileSync(new URL(row.file, ROOT), 'utf8');
    const literal = `'${row.path.replace(/\/\*$/, '')}'`;
    assert.ok(source.includes(literal), `${row.file} holds ${literal} (${row.method} ${row.path})`);
  }
});
