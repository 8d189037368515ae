// What the container image runs: every file src/ reaches at run time, with the packages those files
// import installed by `npm ci --omit=dev`. Checked over the sources, so that a new import of a
// devDependency, or of a file outside what the Dockerfile copies, fails here instead of in the image
// (`wfs migrate` once failed there with ERR_MODULE_NOT_FOUND: src/cli imports packages/cli/src).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
/** Declared for what it does without being imported: Fastify's logger, pinned at the version the service was measured with. */
const DECLARED_NOT_IMPORTED = new Set(['pino']);

interface Import {
  specifier: string;
  /** Erased by type stripping (`import type`, `export type … from`): nothing is loaded at run time. */
  typeOnly: boolean;
}

const IMPORT = /^\s*(?:import|export)\s+(type\s+)?[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'|\bimport\('([^']+)'\)/gm;

function importsOf(file: string): Import[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => ({ specifier: (match[2] ?? match[3] ?? match[4])!, typeOnly: match[1] !== undefined }));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every file the running service and `wfs` may load: src/ and what its relative imports reach, transitively. */
function reachableFromSrc(): Map<string, Import[]> {
  const files = new Map<string, Import[]>();
  const pending = sourceFiles(join(ROOT, 'src'));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    const imports = importsOf(file);
    files.set(file, imports);
    for (const { specifier, typeOnly } of imports) if (specifier.startsWith('.') && !typeOnly) pending.push(resolve(dirname(file), specifier));
  }
  return files;
}

const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const isBare = (specifier: string): boolean => !specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.startsWith('node:');

const reachable = reachableFromSrc();
const rel = (file: string): string => relative(ROOT, file);

test('the graph is read (a guard against a pattern that matches nothing)', () => {
  assert.ok(reachable.has(join(ROOT, 'packages/cli/src/program.ts')), 'src/cli reaches the integrator CLI runner');
  assert.ok(reachable.get(join(ROOT, 'src/sso/relying-party.ts'))?.some((i) => i.specifier === 'openid-client' && !i.typeOnly));
  assert.ok(reachable.get(join(ROOT, 'src/app/app.ts'))?.some((i) => i.specifier === '@fastify/type-provider-typebox' && i.typeOnly));
});

test('the Dockerfile copies every file src/ reaches at run time', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const copied = [...dockerfile.matchAll(/^COPY\s+(\S+)\s+\.\/(\S+)\s*$/gm)].map(([line, from, to]) => {
    assert.equal(from, to, `${line}: copied to the same path, so relative imports resolve as in the repository`);
    return `${from}/`;
  });
  assert.ok(copied.includes('src/'));
  const missing = [...reachable.keys()].map(rel).filter((file) => !copied.some((dir) => file.startsWith(dir)));
  assert.deepEqual(missing, []);
});

test('every package that code loads at run time is a production dependency (npm ci --omit=dev installs it)', () => {
  const undeclared = [...reachable].flatMap(([file, imports]) =>
    imports.filter((i) => isBare(i.specifier) && !i.typeOnly && !(packageOf(i.specifier) in manifest.dependencies)).map((i) => `${rel(file)} imports ${i.specifier}${packageOf(i.specifier) in manifest.devDependencies ? ' (a devDependency)' : ''}`),
  );
  assert.deepEqual(undeclared, []);
});

test('every production dependency is imported by that code (none is installed in the image for nothing)', () => {
  const imported = new Set([...reachable.values()].flatMap((imports) => imports.filter((i) => isBare(i.specifier)).map((i) => packageOf(i.specifier))));
  assert.deepEqual(Object.keys(manifest.dependencies).filter((name) => !imported.has(name) && !DECLARED_NOT_IMPORTED.has(name)), []);
});
