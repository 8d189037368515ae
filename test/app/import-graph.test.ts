// The layering of src/, checked over the import graph: the floor (platform, then tenancy) imports no
// feature, features import only the floor, and the composition layers import what they compose. A new
// folder under src/ gets a row in LAYERS (and in docs/architecture.md) before it can land.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** What every feature may build on: the plumbing, the tenants, and the change log every write path records into. */
const FLOOR = ['platform', 'tenancy', 'changes'];

/** Each folder of src/ and the folders it may import besides itself. */
const LAYERS: Record<string, readonly string[]> = {
  platform: [],
  tenancy: ['platform'],
  changes: ['platform', 'tenancy'],
  iam: FLOOR,
  company: FLOOR,
  inbound: FLOOR,
  timeclock: FLOOR,
  webhooks: FLOOR,
  // Composition: the operator API, the demo and the command-line programs call features' domain functions.
  admin: [...FLOOR, 'iam', 'company'],
  demo: [...FLOOR, 'iam', 'company', 'console'],
  // Single sign-on: a way into identity, with operator endpoints of its own.
  sso: [...FLOOR, 'iam', 'admin'],
  // The customer console: pages over identity, single sign-on and webhooks (its wfs command lives in
  // cli/), and, like sso, an operator endpoint of its own (invitations) behind admin's guard.
  console: [...FLOOR, 'iam', 'sso', 'webhooks', 'admin'],
  cli: [...FLOOR, 'iam', 'company', 'admin', 'demo', 'console', 'sso', 'webhooks'],
};
/**
 * The app factory, the server, the context and the options it hands each feature plugin: the one
 * layer that may import everything, and that nothing below imports — not even the context's type.
 */
const TOP = 'app';

interface Import {
  from: string;
  to: string;
  /** The import clause: what it brings in. */
  names: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?([^'"]*?)from\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'|import\('(\.[^']+)'\)/gm;

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => ({
    from: relative(SRC, file),
    to: relative(SRC, resolve(dirname(file), (match[4] ?? match[5] ?? match[6])!)),
    names: match[3] ?? '',
  }));
}

const folderOf = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : path);

function violation({ from, to }: Import): string | undefined {
  const source = folderOf(from);
  const target = folderOf(to);
  if (source === TOP || source === target || to.startsWith('..')) return undefined;
  const allowed = LAYERS[source];
  if (!allowed) return `${from}: src/${source}/ has no row in LAYERS (test/app/import-graph.test.ts)`;
  return allowed.includes(target) ? undefined : `${from} imports ${to}: src/${source}/ may import only ${[...allowed].join(', ') || 'itself'}`;
}

const graph = sourceFiles(SRC).flatMap(importsOf);

test('the import graph is read (a guard against a pattern that matches nothing)', () => {
  assert.ok(graph.length > 200, `${graph.length} imports found`);
  assert.ok(graph.some((i) => i.from === 'app/app.ts' && i.to === 'iam/routes.ts'));
});

test('no folder imports outside its layer: the floor no feature, a feature no sibling', () => {
  assert.deepEqual(graph.flatMap((i) => violation(i) ?? []), []);
});

test('no two folders may import each other (a cycle between layers)', () => {
  const mutual = Object.entries(LAYERS).flatMap(([folder, allowed]) => allowed.filter((other) => LAYERS[other]?.includes(folder)).map((other) => `${folder} <-> ${other}`));
  assert.deepEqual(mutual, []);
});

test('only the composition layer registers feature route plugins', () => {
  const plugins = graph.filter((i) => /\b\w+Routes\b/.test(i.names) && folderOf(i.from) !== folderOf(i.to));
  assert.deepEqual(plugins.filter((i) => folderOf(i.from) !== TOP).map((i) => `${i.from} imports ${i.to}`), []);
});
