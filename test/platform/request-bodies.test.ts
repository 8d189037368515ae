// How request bodies are read (contract: errors and limits), on every JSON endpoint: only UTF-8 (another declared
// charset is 415, bytes that are not UTF-8 a 400 rather than silent U+FFFD), and a body nested past
// 64 levels — 100,000 `[` once overflowed the parser's stack — is 400 malformed_body, in the
// endpoint's own error shape. Bodies are limited per endpoint: 2 MiB on the company API (CONTRACT §4),
// 64 KiB on the OAuth endpoints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useCompanyServer } from '../support/company.ts';
import { bearer } from '../support/tenants.ts';
import type { ProblemBody } from '../support/http.ts';

const company = useCompanyServer({ name: 'Bakery', inProcess: true });

const COMPANY_WRITES = ['/api/v1/company/revenue', '/api/v1/company/wage-budget', '/api/v1/timeclock/events'];

function post(path: string, body: string | Buffer, contentType = 'application/json'): Promise<Response> {
  return company.server.fetch(`${company.server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': contentType, ...bearer(company.token) }, body });
}

async function assertProblem(response: Response, status: number, code: string): Promise<ProblemBody> {
  const body = (await response.json()) as ProblemBody & { requestId: string };
  assert.equal(response.status, status, JSON.stringify(body));
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(body.code, code);
  assert.equal(body.requestId, response.headers.get('x-request-id'));
  return body;
}

test('a JSON body declared in another charset than UTF-8 is 415 on every company write; charset=utf-8 is fine', async () => {
  for (const path of COMPANY_WRITES) {
    const problem = await assertProblem(await post(path, '{"items":[]}', 'application/json; charset=utf-16'), 415, 'unsupported_media_type');
    assert.match(problem.detail, /UTF-8/);
    await assertProblem(await post(path, '{}', 'application/json; charset=ISO-8859-1'), 415, 'unsupported_media_type');
    const utf8 = await post(path, '{}', 'application/json; charset=UTF-8');
    assert.equal(utf8.status, 400, 'an empty object is refused by the schema, not by its charset');
  }
});

test('the token endpoint refuses another charset with 415 invalid_request, as JSON and as a form', async () => {
  for (const type of ['application/json; charset=utf-16', 'application/x-www-form-urlencoded; charset=iso-8859-1']) {
    const response = await company.server.fetch(`${company.server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': type }, body: 'grant_type=client_credentials' });
    const body = (await response.json()) as { error: string };
    assert.equal(response.status, 415, type);
    assert.equal(body.error, 'invalid_request');
  }
});

test('bytes that are not UTF-8 are 400 malformed_body, not stored as U+FFFD', async () => {
  for (const path of COMPANY_WRITES) {
    const bytes = Buffer.concat([Buffer.from('{"items":[{"departmentId":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]);
    const problem = await assertProblem(await post(path, bytes), 400, 'malformed_body');
    assert.match(problem.detail, /UTF-8/);
  }
});

test('a number longer than 256 characters is 400 malformed_body before parsing; one of 256 is read as usual', async () => {
  for (const path of COMPANY_WRITES) {
    const problem = await assertProblem(await post(path, `{"items":[{"amount":1${'0'.repeat(256)}}]}`), 400, 'malformed_body');
    assert.match(problem.detail, /longer than 256 characters/);
    const longest = await post(path, `{"items":[{"amount":0.${'0'.repeat(254)}}]}`);
    assert.notEqual(((await longest.json()) as { code?: string }).code, 'malformed_body', path);
  }
});

test('100,000 nested arrays are 400 malformed_body (no stack overflow) on every JSON endpoint', async () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  for (const path of COMPANY_WRITES) {
    const problem = await assertProblem(await post(path, nested(100_000)), 400, 'malformed_body');
    assert.match(problem.detail, /deeper than 64/);
    await assertProblem(await post(path, `{"items":${nested(100_000)}}`), 400, 'malformed_body');
  }
  // 30,000 (60 kB) where the endpoint takes 64 KiB.
  const token = await company.server.fetch(`${company.server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested(30_000) });
  assert.equal(token.status, 400);
  assert.equal(((await token.json()) as { error: string }).error, 'invalid_request');
});

test('a body over 2 MiB is 413 on every company API write; 1 MiB is read and judged by the schema', async () => {
  const padded = (bytes: number) => `{"items":[],"pad":"${'x'.repeat(bytes)}"}`;
  for (const path of [...COMPANY_WRITES, '/api/v1/company/webhooks']) {
    const tooLarge = await assertProblem(await post(path, padded(2 * 1024 * 1024)), 413, 'payload_too_large');
    assert.match(tooLarge.detail, /2 MiB/);
    await assertProblem(await post(path, padded(1024 * 1024)), 400, 'validation_failed');
  }
});

test('a body other than a batch holding more than 1,000 values is 400 validation_failed, before it is parsed', async () => {
  const keys = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}`;
  for (const path of ['/api/v1/timeclock/events', '/api/v1/company/webhooks']) {
    const problem = await assertProblem(await post(path, keys(1001)), 400, 'validation_failed');
    assert.match(problem.detail, /more values than this endpoint takes \(at most 1000\)/);
    const judged = await assertProblem(await post(path, keys(999)), 400, 'validation_failed');
    assert.doesNotMatch(judged.detail, /more values/, 'fewer values are parsed and judged by the schema');
  }
});

test('an unknown query parameter on a company write is 400 naming it, before the body is acted on (CONTRACT §3)', async () => {
  const shapedRight: Record<string, unknown> = {
    '/api/v1/company/revenue': { items: [{ departmentId: 'dep_any', date: '2026-11-20', kind: 'realised', amount: 1 }] },
    '/api/v1/company/wage-budget': { items: [{ departmentId: 'dep_any', date: '2026-11-20', amount: 1, hours: 8 }] },
    '/api/v1/timeclock/events': { eventId: '0b7c5f4e-2d7a-4a53-9a8e-1f2b3c4d5e6f', badgeId: 'B-1', type: 'clock_in', occurredAt: '2026-11-20T08:00:00Z', source: 'terminal' },
  };
  for (const path of COMPANY_WRITES) {
    const problem = await assertProblem(await post(`${path}?foo=1`, JSON.stringify(shapedRight[path])), 400, 'validation_failed');
    assert.deepEqual(problem.errors, [{ path: '/querystring/foo', message: 'unknown query parameter "foo"' }], path);
  }
});

test('a token request over 64 KiB is 413 invalid_request', async () => {
  const response = await company.server.fetch(`${company.server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&pad=${'x'.repeat(64 * 1024)}` });
  assert.equal(response.status, 413);
  assert.equal(((await response.json()) as { error: string }).error, 'invalid_request');
});

test('64 levels of nesting are still parsed (and refused by the schema, not as malformed)', async () => {
  const nested = `{"items":[{"departmentId":${'['.repeat(61)}${']'.repeat(61)}}]}`;
  await assertProblem(await post('/api/v1/company/revenue', nested), 400, 'validation_failed');
});
