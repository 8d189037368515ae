// One table of error codes: src/platform/error-codes.ts (status, title, meaning) is what docs/errors.md
// lists, code for code and status for status, and a problem's title comes from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_CODES, OAUTH_ERROR_CODES, type ErrorCodeEntry } from '../../src/platform/error-codes.ts';
import { useTestServer } from '../support/server.ts';

const ROW = /^\| (\d{3}) \| ((?:`[a-z_]+`(?:, )?)+) \|/;

/** The `status code` pairs of the table that follows `heading` in docs/errors.md. */
function documented(after: string, before?: string): string[] {
  const text = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const start = text.indexOf(after);
  assert.ok(start >= 0, `docs/errors.md has "${after}"`);
  const section = text.slice(start, before ? text.indexOf(before, start) : undefined);
  return section.split('\n').flatMap((line) => {
    const match = ROW.exec(line);
    return match ? [...match[2]!.matchAll(/`([a-z_]+)`/g)].map((code) => `${match[1]} ${code[1]}`) : [];
  }).filter((row, index, rows) => rows.indexOf(row) === index).sort();
}

const inCode = (table: Record<string, ErrorCodeEntry>): string[] => Object.entries(table).map(([code, entry]) => `${entry.status} ${code}`).sort();

test('docs/errors.md lists exactly the problem codes of the code table, each with its status', () => {
  assert.deepEqual(documented('| status | code | when |', 'OAuth error codes'), inCode(ERROR_CODES));
});

test('docs/errors.md lists exactly the OAuth error codes of the code table, each with its status', () => {
  assert.deepEqual(documented('OAuth error codes'), inCode(OAUTH_ERROR_CODES));
});

test('every code has a title and a meaning', () => {
  for (const [code, entry] of Object.entries({ ...ERROR_CODES, ...OAUTH_ERROR_CODES })) {
    assert.ok(entry.title.length > 0 && entry.meaning.length > 0, code);
  }
});

const server = useTestServer({}, { inProcess: true });

test('a problem answer carries the status and title of its code', async () => {
  const response = await server.app.inject({ method: 'GET', url: '/api/v1/company/users' });
  const problem = response.json<{ code: string; title: string; status: number }>();
  assert.equal(problem.code, 'missing_token');
  assert.equal(response.statusCode, ERROR_CODES.missing_token.status);
  assert.equal(problem.status, ERROR_CODES.missing_token.status);
  assert.equal(problem.title, ERROR_CODES.missing_token.title);
});

test('a problem\'s type is the entry of its code on the service\'s own error page, which lists every code', async () => {
  const response = await server.fetch(`${server.baseUrl}/api/v1/company/users`);
  const problem = (await response.json()) as { type: string; code: string };
  assert.equal(problem.type, `${server.config.baseUrl}/docs/errors#missing_token`);

  const page = await server.fetch(new URL(problem.type).href.replace(server.config.baseUrl, server.baseUrl));
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await page.text();
  for (const code of Object.keys(ERROR_CODES)) assert.match(html, new RegExp(`<tr id="${code}"><td><code>${code}</code>`), code);
  for (const code of Object.keys(OAUTH_ERROR_CODES)) assert.match(html, new RegExp(`<tr id="oauth-${code}">`), code);
});

