// Answers for requests no route takes: a known path asked with another method is 405 with Allow, an
// unknown path 404 (contract: errors and limits), both problem+json; the OAuth endpoints say which body they read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';

const server = useTestServer({ ADMIN_TOKEN: 'routing-admin-token-0123456789' }, { inProcess: true });

async function problemOf(response: Response): Promise<{ code: string; detail: string; requestId: string }> {
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  return (await response.json()) as { code: string; detail: string; requestId: string };
}

test('a known path asked with a method it does not answer is 405 with the methods it does answer in Allow', async () => {
  const cases: Array<[string, string, string]> = [
    ['DELETE', '/api/v1/company/users', 'GET, HEAD'],
    ['PUT', '/api/v1/company/revenue', 'GET, HEAD, POST'],
    ['GET', '/api/v1/iam/oauth/token', 'POST'],
    ['GET', '/api/v1/iam/oauth/revoke', 'POST'],
    ['PUT', '/api/v1/iam/idToken', 'GET, HEAD, POST'],
    ['GET', '/api/v1/admin/api-clients/cli_anything/rotate-secret', 'POST'],
    ['PATCH', '/api/v1/company/users/', 'GET, HEAD'],
    ['POST', '/docs/scalar/js/scalar.js', 'GET, HEAD'],
  ];
  for (const [method, path, allow] of cases) {
    const response = await server.fetch(`${server.baseUrl}${path}?x=1`, { method });
    assert.equal(response.status, 405, `${method} ${path}`);
    assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
    const problem = await problemOf(response);
    assert.equal(problem.code, 'method_not_allowed');
    assert.match(problem.detail, new RegExp(`not ${method}`));
    assert.equal(problem.requestId, response.headers.get('x-request-id'));
  }
});

test('an unknown path is 404 not_found whatever the method', async () => {
  for (const [method, path] of [['GET', '/api/v1/company/nothing'], ['POST', '/api/v1/company/users/extra'], ['DELETE', '/nowhere']]) {
    const response = await server.fetch(`${server.baseUrl}${path}`, { method });
    assert.equal(response.status, 404, `${method} ${path}`);
    assert.equal(response.headers.get('allow'), null);
    assert.equal((await problemOf(response)).code, 'not_found');
  }
});

test('a console page asked with a method it does not answer is 405 with Allow, as an HTML page; an unknown console page 404', async () => {
  const cases: Array<[string, string, string]> = [
    ['DELETE', '/console', 'GET, HEAD'],
    ['PUT', '/console/login', 'GET, HEAD, POST'],
    ['PATCH', '/console/audit', 'GET, HEAD'],
    ['POST', '/console/audit.csv', 'GET, HEAD'],
    ['GET', '/console/sign-out', 'POST'],
    ['DELETE', '/console/companies/cmp_any/webhooks/whe_any', 'GET, HEAD'],
    ['PUT', '/console/companies/cmp_any/webhooks/whe_any/rotate-secret', 'POST'],
    ['POST', '/console/assets/console.css', 'GET, HEAD'],
  ];
  for (const [method, path, allow] of cases) {
    const response = await server.fetch(`${server.baseUrl}${path}`, { method });
    assert.equal(response.status, 405, `${method} ${path}`);
    assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await response.text(), new RegExp(`not ${method}`));
  }
  for (const method of ['GET', 'DELETE']) {
    const response = await server.fetch(`${server.baseUrl}/console/nothing`, { method });
    assert.equal(response.status, 404, `${method} /console/nothing`);
    assert.equal(response.headers.get('allow'), null);
    await response.text();
  }
});

test('an unknown path or method is 404 or 405 whatever the body: not 413 for a large one, not 415 for another type', async () => {
  const large = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
  const cases: Array<[string, string, string, string, number]> = [
    ['POST', '/api/v1/company/nope', large, 'application/json', 404],
    ['PUT', '/api/v1/company/revenue', large, 'application/json', 405],
    ['PATCH', '/api/v1/company/revenue', 'a=1', 'text/csv', 405],
    ['POST', '/api/v1/company/nope', 'a=1', 'text/csv', 404],
  ];
  for (const [method, path, body, type, status] of cases) {
    const response = await server.fetch(`${server.baseUrl}${path}`, { method, body, headers: { 'content-type': type } });
    assert.equal(response.status, status, `${method} ${path} with ${body.length} bytes of ${type}`);
    assert.equal((await problemOf(response)).code, status === 404 ? 'not_found' : 'method_not_allowed');
  }
});

// A request with no body at all sends no type to refuse: it lacks every parameter (test/iam/token.test.ts).
test('the token and revocation endpoints refuse a body that is neither form fields nor JSON with 415 and say what to send', async () => {
  for (const path of ['/api/v1/iam/oauth/token', '/api/v1/iam/oauth/revoke']) {
    const multipart = new FormData();
    multipart.set('grant_type', 'client_credentials');
    for (const init of [{ headers: { 'content-type': 'text/plain' }, body: 'grant_type=client_credentials' }, { body: multipart }, { headers: { 'content-type': 'application/xml' }, body: '<a/>' }]) {
      const response = await server.fetch(`${server.baseUrl}${path}`, { method: 'POST', ...init });
      assert.equal(response.status, 415, path);
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, 'invalid_request');
      assert.match(body.error_description, /application\/x-www-form-urlencoded/);
    }
  }
});
