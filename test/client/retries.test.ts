import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { ApiError, NetworkError, WfsClient } from '../../packages/client/src/index.ts';

// Three secured calls per minute per client: the fourth is a real 429 from the service.
const server = useTestServer({ RATE_LIMIT_API_PER_MINUTE: '3' });

const FAST = { backoffMs: 10 };

async function refreshToken(): Promise<string> {
  return (await signedInCompany(server.ctx)).refreshToken;
}

test('over the rate limit the client hands back the 429 as an ApiError when Retry-After is longer than it may wait', async () => {
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken: await refreshToken(), retry: { ...FAST, maxRetryAfterSeconds: 1 } });
  for (let i = 0; i < 3; i++) await client.request('GET', '/api/v1/company/configuration');
  await assert.rejects(client.request('GET', '/api/v1/company/configuration'), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limited');
    assert.match(error.requestId ?? '', /.{8,}/);
    return true;
  });
});

test('a 429 is waited out for Retry-After seconds and the request sent again', async () => {
  const sent: { method: string; at: number }[] = [];
  let limited = 0;
  // The service's window is a minute; this gate in front of it answers one short 429 first.
  const gate = async (request: Request): Promise<Response> => {
    sent.push({ method: request.method, at: Date.now() });
    if (!request.url.endsWith('/idToken') && limited++ === 0) {
      return new Response(JSON.stringify({ type: 'x', title: 'Too Many Requests', status: 429, detail: 'slow down', code: 'rate_limited', requestId: 'r1' }), {
        status: 429,
        headers: { 'retry-after': '1', 'content-type': 'application/problem+json' },
      });
    }
    return fetch(request);
  };
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken: await refreshToken(), fetch: gate, retry: FAST });
  const started = Date.now();
  const answer = (await client.request('GET', '/api/v1/company/configuration')) as { company: { id: string } };
  assert.ok(answer.company.id);
  const calls = sent.filter((s) => s.method === 'GET');
  assert.equal(calls.length, 2);
  assert.ok((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0) >= 1000, 'waited Retry-After');
  assert.ok(Date.now() - started < 3000);
});

test('a GET is retried with backoff when the connection fails; the error surfaces once the retries are spent', async () => {
  let failures = 2;
  const flaky = async (request: Request): Promise<Response> => {
    if (!request.url.endsWith('/idToken') && failures-- > 0) throw new TypeError('fetch failed');
    return fetch(request);
  };
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken: await refreshToken(), fetch: flaky, retry: FAST });
  assert.ok(await client.request('GET', '/api/v1/company/configuration'));

  const down = new WfsClient({ baseUrl: server.baseUrl, refreshToken: await refreshToken(), retry: { ...FAST, retries: 2 }, fetch: async (request) => {
    if (request.url.endsWith('/idToken')) return fetch(request);
    throw new TypeError('fetch failed');
  } });
  await assert.rejects(down.request('GET', '/api/v1/company/configuration'), NetworkError);
});

test('a POST is not repeated after a lost connection (it may have been processed)', async () => {
  let posts = 0;
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken: await refreshToken(), retry: FAST, fetch: async (request) => {
    if (request.method === 'POST' && !request.url.endsWith('/idToken')) {
      posts++;
      throw new TypeError('fetch failed');
    }
    return fetch(request);
  } });
  await assert.rejects(client.request('POST', '/api/v1/company/revenue', { body: { items: [] } }), NetworkError);
  assert.equal(posts, 1);
});

test('a refused request is an ApiError carrying the problem details', async () => {
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken: await refreshToken() });
  await assert.rejects(client.request('GET', '/api/v1/company/configuration', { query: { form: '2026-01-01' } }), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 400);
    assert.equal(error.problem.code, 'validation_failed');
    assert.deepEqual(error.problem.errors, [{ path: '/querystring/form', message: 'unknown query parameter "form"' }]);
    return true;
  });
});

test('a 401 on a call (token revoked early, or a slow local clock) renews the ID token once and retries', async () => {
  let refused = 0;
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken: await refreshToken(), retry: FAST, fetch: async (request) => {
    if (!request.url.endsWith('/idToken') && refused++ === 0) {
      return new Response(JSON.stringify({ type: 'x', title: 'Unauthorized', status: 401, detail: 'The token has expired.', code: 'invalid_token', requestId: 'r' }), { status: 401 });
    }
    return fetch(request);
  } });
  const answer = (await client.request('GET', '/api/v1/company/configuration')) as { company: { id: string } };
  assert.ok(answer.company.id);
  assert.equal(client.tokens.renewals, 2);

  const always = new WfsClient({ baseUrl: server.baseUrl, refreshToken: await refreshToken(), retry: FAST, fetch: async (request) => {
    if (request.url.endsWith('/idToken')) return fetch(request);
    return new Response(JSON.stringify({ type: 'x', title: 'Unauthorized', status: 401, detail: 'no', code: 'invalid_token', requestId: 'r' }), { status: 401 });
  } });
  await assert.rejects(always.request('GET', '/api/v1/company/configuration'), (error: unknown) => error instanceof ApiError && error.status === 401);
  assert.equal(always.tokens.renewals, 2, 'renewed once, not in a loop');
});
