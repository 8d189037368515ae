// The file names the docs give are true: every backticked path (`src/iam/keys.ts`, `src/changes/`)
// in docs/*.md exists, every file name in a folder's row of docs/architecture.md's folder table
// (`keys.ts` in the `src/iam/` row) exists in that folder, and the rows of the shared folders,
// which list their files one by one, list every file. A renamed, deleted or new file fails here
// instead of leaving the map wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
/** The folders whose row names each of their files (the floor and the composition layer); db/migrations are listed by docs/deployment.md's migrate step instead. */
const LISTED_FILE_BY_FILE = ['src/app/', 'src/platform/', 'src/tenancy/'];
const NOT_LISTED = /^src\/platform\/db\/migrations\//;

const PATH = /^(?:src|test|packages|scripts|bench|examples|deploy)\/[\w./-]*$/;
/** A file name relative to a row's folder: `keys.ts`, `db/database.ts`. */
const FILE_NAME = /^[\w-]+(?:\/[\w.-]+)*\.ts$/;

/** A path as the docs write it: a file or folder, or a test or script named without its extension (`test/iam/token`). */
const exists = (span: string): boolean => ['', '.ts', '.test.ts'].some((extension) => existsSync(join(ROOT, `${span}${extension}`)));

const backticked = (text: string): string[] => [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory()) return filesUnder(`${path}/`);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const docs = readdirSync(DOCS).filter((name) => name.endsWith('.md')).map((name) => ({ name: `docs/${name}`, text: readFileSync(join(DOCS, name), 'utf8') }));

/** The rows of docs/architecture.md's folder table: the folder and the backticked names in the row. */
function folderRows(): Array<{ folder: string; names: string[] }> {
  const text = docs.find((doc) => doc.name === 'docs/architecture.md')!.text;
  const section = text.slice(text.indexOf('## Folders'), text.indexOf('\n## ', text.indexOf('## Folders') + 1));
  return section.split('\n').flatMap((line) => {
    const folder = /^\| `((?:src|packages)\/[\w-]+\/)` \|/.exec(line)?.[1];
    return folder ? [{ folder, names: backticked(line.slice(line.indexOf('|', 2))) }] : [];
  });
}

test('the docs are read (a guard against a pattern that matches nothing)', () => {
  assert.ok(docs.length > 5);
  assert.ok(backticked(docs.map((doc) => doc.text).join('\n')).filter((span) => PATH.test(span)).length > 50);
  assert.deepEqual(LISTED_FILE_BY_FILE.filter((folder) => !folderRows().some((row) => row.folder === folder)), []);
});

test('every backticked path in docs/*.md exists', () => {
  const missing = docs.flatMap(({ name, text }) =>
    backticked(text)
      .filter((span) => PATH.test(span) && !exists(span))
      .map((span) => `${name}: ${span}`),
  );
  assert.deepEqual([...new Set(missing)], []);
});

test('every file name in a folder\'s row of the folder table is a file of that folder', () => {
  const missing = folderRows().flatMap(({ folder, names }) => {
    const files = filesUnder(folder);
    return names.filter((name) => FILE_NAME.test(name) && !PATH.test(name) && !files.some((file) => file.endsWith(`/${name}`))).map((name) => `${folder}: ${name}`);
  });
  assert.deepEqual(missing, []);
});

test('the rows of src/app/, src/platform/ and src/tenancy/ name every file of their folder', () => {
  const unnamed = folderRows()
    .filter((row) => LISTED_FILE_BY_FILE.includes(row.folder))
    .flatMap(({ folder, names }) => {
      const named = (file: string) => names.some((name) => file === name || file.endsWith(`/${name}`));
      return filesUnder(folder).filter((file) => !NOT_LISTED.test(file) && statSync(join(ROOT, file)).isFile() && !named(file)).map((file) => relative(ROOT, join(ROOT, file)));
    });
  assert.deepEqual(unnamed, [], 'name the file in its folder\'s row of docs/architecture.md, with what it is for');
});
