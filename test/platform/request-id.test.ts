// Request ids (contract: errors and limits): every response carries X-Request-Id — company API answers, OAuth errors,
// HTML pages, unknown paths, refusals — and a problem+json body's requestId equals it. A well-formed
// incoming X-Request-Id (8–128 of [A-Za-z0-9._-]) is kept, so a trace spans the load balancer and the
// service; anything else is replaced by a UUID of the service's own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { bearer, mintTokens, provisionTenant, type Tenant } from '../support/tenants.ts';
import { authorizeUrl, defaultParams } from '../iam/helpers.ts';

let server: TestServer;
let tenant: Tenant;
let idToken: string;
before(async () => {
  server = await startTestServer({}, { inProcess: true });
  tenant = await provisionTenant(server.ctx);
  idToken = (await mintTokens(server.ctx, tenant)).id_token;
});
after(() => server.close());

function postTokenJson(body: Record<string, string>, headers: Record<string, string>): Promise<Response> {
  return server.fetch(`${server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Kind {
  name: string;
  /** The status this kind of answer has. */
  status: number;
  /** Whether the body is application/problem+json (then its requestId must equal the header). */
  problem: boolean;
  send(headers: Record<string, string>): Promise<Response>;
}

const kinds: Kind[] = [
  {
    name: 'a company API call (200)',
    status: 200,
    problem: false,
    send: (headers) => server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: { ...bearer(idToken), ...headers } }),
  },
  {
    name: 'an OAuth error at the token endpoint (400 invalid_grant)',
    status: 400,
    problem: false,
    send: (headers) => postTokenJson({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: tenant.redirectUri, client_id: tenant.clientId, client_secret: tenant.clientSecret }, headers),
  },
  {
    name: 'an OAuth error at the token endpoint (401 invalid_client)',
    status: 401,
    problem: false,
    // A client id of its own each time: failed authentications are penalised per client and address.
    send: (headers) => postTokenJson({ grant_type: 'authorization_code', code: 'x', redirect_uri: tenant.redirectUri, client_id: `cli_unknown_${randomUUID()}`, client_secret: 'wrong' }, headers),
  },
  {
    name: 'an OAuth error at the token endpoint (400 invalid_request)',
    status: 400,
    problem: false,
    send: (headers) => server.fetch(`${server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"grant_type":' }),
  },
  {
    name: 'the HTML login page (200)',
    status: 200,
    problem: false,
    send: (headers) => server.fetch(authorizeUrl(server, defaultParams(tenant)), { headers }),
  },
  {
    name: 'an unknown path (404 problem)',
    status: 404,
    problem: true,
    send: (headers) => server.fetch(`${server.baseUrl}/api/v1/no-such-thing`, { headers }),
  },
  {
    name: 'a company API call without a token (401 problem)',
    status: 401,
    problem: true,
    send: (headers) => server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers }),
  },
  {
    name: 'a company API call with a bad query parameter (400 problem)',
    status: 400,
    problem: true,
    send: (headers) => server.fetch(`${server.baseUrl}/api/v1/company/configuration?bogus=1`, { headers: { ...bearer(idToken), ...headers } }),
  },
];

/** Sends one request of `kind` and answers the X-Request-Id it came back with, checked against the body. */
async function requestIdOf(kind: Kind, headers: Record<string, string> = {}): Promise<string> {
  const response = await kind.send(headers);
  const text = await response.text();
  assert.equal(response.status, kind.status, `${kind.name}: ${text.slice(0, 300)}`);
  const id = response.headers.get('x-request-id');
  assert.ok(id, `${kind.name} has X-Request-Id`);
  if (kind.problem) {
    assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/, kind.name);
    assert.equal((JSON.parse(text) as { requestId: string }).requestId, id, `${kind.name}: requestId equals the header`);
  }
  return id;
}

test('every kind of response carries its own X-Request-Id, a UUID when the caller sent none', async () => {
  const seen = new Set<string>();
  for (const kind of kinds) {
    const id = await requestIdOf(kind);
    assert.match(id, UUID, kind.name);
    seen.add(id);
  }
  assert.equal(seen.size, kinds.length, 'a new id for every request');
});

test('a well-formed incoming X-Request-Id (8–128 of [A-Za-z0-9._-]) is echoed on every kind of response', async () => {
  const wellFormed = ['abcd1234', 'lb-trace.2026_11_22-XYZ', 'A'.repeat(128), 'a.b_c-d.E_F-9', '0123456789'];
  for (const kind of kinds) {
    for (const incoming of wellFormed) assert.equal(await requestIdOf(kind, { 'x-request-id': incoming }), incoming, `${kind.name} keeps ${incoming}`);
  }
});

test('a malformed incoming X-Request-Id is replaced by a UUID, in the header and the problem body alike', async () => {
  const malformed = ['abc1234', 'A'.repeat(129), 'has space1', 'slash/not/ok', 'colon:nope', 'quote"d-id', 'semi;colon1', 'percent%20x', '{curly-brace}'];
  for (const kind of kinds) {
    for (const incoming of malformed) {
      const id = await requestIdOf(kind, { 'x-request-id': incoming });
      assert.notEqual(id, incoming, `${kind.name} replaces ${incoming}`);
      assert.match(id, UUID, `${kind.name} replaces ${incoming} by a UUID`);
    }
  }
});

test('a request whose path is not valid percent-encoding is answered 400 problem+json with X-Request-Id', async () => {
  const response = await server.fetch(`${server.baseUrl}/api/v1/company/%E0%A4%A`, { headers: { 'x-request-id': 'bad-url-trace' } });
  assert.equal(response.status, 400);
  assert.equal(response.headers.get('x-request-id'), 'bad-url-trace');
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(((await response.json()) as { requestId: string }).requestId, 'bad-url-trace');
});
