// Every answer to an authenticated call of the company API carries its client's rate-limit state
// (CONTRACT §4): X-RateLimit-Limit, -Remaining and -Reset — successes, 304s, and refusals of a bad
// query or body alike — and the OpenAPI document says so on every secured operation. Over the
// limit: 429 with Retry-After.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useCompanyServer } from '../support/company.ts';
import { bearer } from '../support/tenants.ts';

const company = useCompanyServer({ name: 'Forge', env: { RATE_LIMIT_API_PER_MINUTE: '40' }, inProcess: true });

function call(path: string, init: RequestInit = {}): Promise<Response> {
  return company.server.fetch(`${company.server.baseUrl}${path}`, { ...init, headers: { ...bearer(company.token), ...(init.headers as Record<string, string> | undefined) } });
}

function assertRateLimitHeaders(response: Response, what: string): void {
  assert.equal(response.headers.get('x-ratelimit-limit'), '40', what);
  assert.match(response.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/, what);
  assert.match(response.headers.get('x-ratelimit-reset') ?? '', /^\d+$/, what);
}

test('successes, 304s and 400s of every kind carry X-RateLimit-Limit, -Remaining and -Reset', async () => {
  const json = { 'content-type': 'application/json' };
  const configuration = await call('/api/v1/company/configuration');
  const cases: Array<[string, Response]> = [
    ['200 configuration', configuration],
    ['304 configuration', await call('/api/v1/company/configuration', { headers: { 'if-none-match': configuration.headers.get('etag') ?? '' } })],
    ['200 users', await call('/api/v1/company/users')],
    ['200 timetable feed', await call('/api/v1/feeds/timetable')],
    ['400 unknown query parameter', await call('/api/v1/company/users?form=2026-01-01')],
    ['400 malformed body', await call('/api/v1/company/revenue', { method: 'POST', headers: json, body: '{' })],
    ['400 invalid character', await call('/api/v1/timeclock/events?userId=%00')],
    ['415 wrong content type', await call('/api/v1/timeclock/events', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })],
    ['404 company outside the organisation', await call('/api/v1/timeclock/badges?companyId=nope')],
  ];
  for (const [what, response] of cases) {
    await response.arrayBuffer();
    assertRateLimitHeaders(response, what);
  }
  const remaining = cases.map(([, response]) => Number(response.headers.get('x-ratelimit-remaining')));
  assert.ok(remaining.at(-1)! < remaining[0]!, 'each call spends the budget');
});

test('over the limit: 429 with Retry-After and the same headers', async () => {
  let response = await call('/api/v1/company/configuration');
  for (let i = 0; i < 60 && response.status !== 429; i += 1) {
    await response.arrayBuffer();
    response = await call('/api/v1/company/configuration');
  }
  const problem = (await response.json()) as { code: string };
  assert.equal(response.status, 429);
  assert.equal(problem.code, 'rate_limited');
  assert.match(response.headers.get('retry-after') ?? '', /^\d+$/);
  assertRateLimitHeaders(response, '429');
  assert.equal(response.headers.get('x-ratelimit-remaining'), '0');
});

test('the OpenAPI document lists the rate-limit headers on every answer of every secured operation but 401, 408, 431 and 503', async () => {
  const document = (await (await company.server.fetch(`${company.server.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> }>>;
    components: { responses: Record<string, { headers?: Record<string, unknown> }> };
  };
  let checked = 0;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.security?.some((requirement) => 'idToken' in requirement)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        // 401: no client known yet; 408 and 431: answered by the HTTP server before any route;
        // 503: shared with the operator API, which has no rate limit.
        if (['401', '408', '431', '503'].includes(status)) continue;
        const headers = response.$ref ? document.components.responses[response.$ref.split('/').at(-1) ?? '']?.headers : response.headers;
        for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) assert.ok(headers?.[name], `${method.toUpperCase()} ${path} ${status} documents ${name}`);
        checked += 1;
      }
    }
  }
  assert.ok(checked > 30, `${checked} answers checked`);
});
