import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany, startCompanyServer } from '../support/company.ts';
import { bearer, mintTokens, provisionTenant, type Tenant } from '../support/tenants.ts';
import { codeExchange, openLoginForm, type TokenBody } from '../support/login.ts';
import { authorizeUrl, defaultParams, postToken, renewAtIdToken, submitLogin } from '../iam/helpers.ts';
import { addDepartment, addEmployee } from '../timeclock/fixtures.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, { $ref?: string; content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string; contact?: unknown; license?: unknown };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; description?: string; flows?: Record<string, unknown> }>; schemas: Record<string, unknown>; responses: Record<string, { headers?: Record<string, unknown> }> };
}

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '..', '..');

// The contract's identity and access and its secured company API: every operation the document must describe.
const IDENTITY = [
  ['get', '/api/v1/iam/.well-known/openid-configuration'],
  ['get', '/api/v1/iam/.well-known/jwks.json'],
  ['get', '/oauth/authorize'],
  ['post', '/oauth/authorize'],
  ['post', '/api/v1/iam/oauth/token'],
  ['post', '/api/v1/iam/idToken'],
  ['post', '/api/v1/iam/oauth/revoke'],
] as const;
const COMPANY_API = [
  ['get', '/api/v1/feeds/timetable', 'getTimetableFeed'],
  ['get', '/api/v1/company/configuration', 'getConfiguration'],
  ['get', '/api/v1/company/users', 'getCompanyUsers'],
  ['get', '/api/v1/company/contracts', 'getCompanyContracts'],
  ['get', '/api/v1/company/timetable', 'getTimetable'],
  ['post', '/api/v1/company/revenue', 'createRevenue'],
  ['get', '/api/v1/company/revenue', undefined],
  ['post', '/api/v1/company/wage-budget', 'createWageBudget'],
  ['get', '/api/v1/company/wage-budget', undefined],
  ['get', '/api/v1/timeclock/badges', 'getTimeclockBadgeCollection'],
  ['post', '/api/v1/timeclock/events', 'createTimeclockEvent'],
  ['get', '/api/v1/timeclock/events', undefined],
] as const;

let server: TestServer;
let document: Document;
/** The document of a deployment without ADMIN_TOKEN (no operator API). */
let publicDocument: Document;
let publicServer: TestServer;
before(async () => {
  server = await startTestServer({ AUTH_URL: 'http://login.localhost:9999', ADMIN_TOKEN: 'openapi-test-admin-token' });
  publicServer = await startTestServer();
  const response = await fetch(`${server.baseUrl}/openapi.json`);
  assert.equal(response.status, 200);
  document = (await response.json()) as Document;
  publicDocument = (await (await fetch(`${publicServer.baseUrl}/openapi.json`)).json()) as Document;
});
after(async () => {
  await server.close();
  await publicServer.close();
});

function operations(doc: Document): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([method]) => method !== 'servers').map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation]));
}

const rateLimitHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

test('the document is OpenAPI 3.1 with info, contact, license and a server relative to whatever host serves it', () => {
  assert.equal(document.openapi, '3.1.0');
  assert.equal(document.info.title, 'Workforce Scheduling Service');
  assert.ok(document.info.contact, 'info.contact');
  assert.ok(document.info.license, 'info.license');
  assert.deepEqual(document.servers.map((s) => s.url), ['/']);
});

test('the security schemes: oauth (authorization code against this issuer), idToken and adminToken bearer', () => {
  const { oauth, idToken, adminToken } = document.components.securitySchemes;
  // refreshUrl takes a standard refresh (grant_type=refresh_token): the token endpoint, not idToken (a bearer exchange).
  assert.deepEqual(oauth?.flows?.authorizationCode, {
    authorizationUrl: 'http://login.localhost:9999/oauth/authorize',
    tokenUrl: `${server.baseUrl}/api/v1/iam/oauth/token`,
    refreshUrl: `${server.baseUrl}/api/v1/iam/oauth/token`,
    scopes: { all: 'Everything the API User may do (the only scope).' },
  });
  assert.match(oauth?.description ?? '', /grant_type=refresh_token/);
  assert.equal(idToken?.type, 'http');
  assert.equal(idToken?.scheme, 'bearer');
  assert.equal(adminToken?.type, 'http');
  assert.equal(adminToken?.scheme, 'bearer');
});

for (const [method, path] of IDENTITY) {
  test(`identity: ${method.toUpperCase()} ${path} is documented`, () => {
    const operation = document.paths[path]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} missing from /openapi.json`);
    assert.deepEqual(operation.tags, ['identity']);
  });
}

for (const [method, path, operationId] of COMPANY_API) {
  test(`company API: ${method.toUpperCase()} ${path} is documented, secured by the ID token, with shared error answers`, () => {
    const operation = document.paths[path]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} missing from /openapi.json`);
    if (operationId) assert.equal(operation.operationId, operationId);
    assert.ok(operation.summary, 'summary');
    assert.deepEqual(operation.security, [{ idToken: [] }, { oauth: ['all'] }]);
    assert.deepEqual(operation.responses['401'], { $ref: '#/components/responses/Unauthorized' });
    assert.deepEqual(operation.responses['429'], { $ref: '#/components/responses/TooManyRequests' });
    assert.deepEqual(operation.responses['503'], { $ref: '#/components/responses/ServiceUnavailable' });
    assert.ok(operation.responses['200'], '200 response');
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) < 400 || response.$ref) continue;
      assert.deepEqual(Object.keys(response.content ?? {}), ['application/problem+json'], `${status} is problem+json`);
    }
  });
}

test('every operation uses declared, described tags and carries X-Request-Id on each response', () => {
  const declared = new Map(document.tags.map((tag) => [tag.name, tag.description]));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'servers') continue;
      for (const tag of operation.tags ?? []) assert.ok(declared.get(tag), `${method} ${path}: tag "${tag}" declared with a description`);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response.$ref) assert.ok(response.headers?.['X-Request-Id'], `${method} ${path} ${status}: X-Request-Id`);
      }
    }
  }
});

test('operationIds are unique lowerCamel verbNoun names', () => {
  const ids = operations(document).map(([, operation]) => operation.operationId ?? '');
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^[a-z]+[A-Z][A-Za-z0-9]*$|^[a-z]+$/, id);
});

test('without ADMIN_TOKEN the document has no operator operation, tag or scheme', () => {
  const operator = operations(publicDocument).filter(([, operation]) => operation.tags?.includes('operator') || operation.security?.some((s) => 'adminToken' in s));
  assert.deepEqual(operator.map(([name]) => name), []);
  assert.ok(!publicDocument.tags.some((tag) => tag.name === 'operator'));
  assert.equal(publicDocument.components.securitySchemes.adminToken, undefined);
  assert.ok(publicDocument.paths['/api/v1/company/configuration'], 'the company API stays');
});

test('cacheable reads (configuration, collections, feed) document 304 and the ETag; secured successes the rate limit', () => {
  for (const path of ['/api/v1/company/configuration', '/api/v1/company/users', '/api/v1/company/contracts', '/api/v1/company/timetable', '/api/v1/feeds/timetable']) {
    const responses = document.paths[path]?.get?.responses ?? {};
    assert.ok(responses['304'], `${path} 304`);
    for (const status of ['200', '304']) {
      const headers = Object.keys(responses[status]?.headers ?? {});
      for (const name of ['ETag', ...rateLimitHeaders, 'X-Request-Id']) assert.ok(headers.includes(name), `${path} ${status} ${name}`);
    }
  }
  for (const [name, operation] of operations(document)) {
    assert.ok(operation.responses['431'], `${name} 431`);
    if ((operation as { requestBody?: unknown }).requestBody) assert.ok(operation.responses['408'], `${name} 408`);
  }
});

test('the headers the document gives a secured answer are the ones the service sends, and configuration answers 304', async () => {
  const { token } = await signedInCompany(server.ctx);
  const url = `${server.baseUrl}/api/v1/company/configuration`;
  const answer = await fetch(url, { headers: bearer(token) });
  assert.equal(answer.status, 200);
  const documented = Object.keys(document.paths['/api/v1/company/configuration']?.get?.responses['200']?.headers ?? {});
  for (const name of documented) assert.ok(answer.headers.get(name), `${name} sent`);
  const etag = answer.headers.get('etag') ?? '';
  const again = await fetch(url, { headers: { ...bearer(token), 'if-none-match': etag } });
  assert.equal(again.status, 304);
  for (const name of Object.keys(document.paths['/api/v1/company/configuration']?.get?.responses['304']?.headers ?? {})) assert.ok(again.headers.get(name), `304 ${name} sent`);
});

/** Headers of the connection and the body, which the document leaves to HTTP itself. */
const TRANSPORT = new Set(['connection', 'keep-alive', 'date', 'content-length', 'content-type', 'transfer-encoding']);

/** The header names the document declares for `status` of `method path`, lower case (a shared answer's through its $ref). */
function declaredHeaders(doc: Document, method: string, path: string, status: number): string[] {
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
  assert.ok(response, `${method} ${path} documents ${status}`);
  const shared = response.$ref ? doc.components.responses[response.$ref.split('/').pop() ?? ''] : undefined;
  return Object.keys((shared ?? response).headers ?? {}).map((name) => name.toLowerCase()).sort();
}

/** Sends until the answer is 429 (the limit is a few requests a minute), and answers that. */
async function untilRefused(send: () => Promise<Response>): Promise<Response> {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const response = await send();
    if (response.status === 429) return response;
    await response.text();
  }
  throw new Error('never refused with 429');
}

test('the OAuth endpoints and the login page send exactly the headers the document declares on each answer', async () => {
  const oauthServer = await startTestServer({ RATE_LIMIT_TOKEN_PER_MINUTE: '3' });
  try {
    const served = (await (await fetch(`${oauthServer.baseUrl}/openapi.json`)).json()) as Document;
    const { issuer } = oauthServer.config;
    const tenant = await provisionTenant(oauthServer.ctx);
    const spent = await provisionTenant(oauthServer.ctx);
    const form = (client: Tenant, fields: Record<string, string>, authorization?: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
      body: new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret, ...fields }).toString(),
    });
    const answers: Array<[string, string, () => Promise<Response>]> = [];
    const login = await openLoginForm(authorizeUrl(oauthServer, defaultParams(tenant)));
    answers.push(['GET', '/oauth/authorize', async () => login.response]);
    const submitted = await submitLogin(oauthServer, login, { email: tenant.email, secret: tenant.secret });
    answers.push(['POST', '/oauth/authorize', async () => submitted]);
    const code = new URL(submitted.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const exchanged = await postToken(oauthServer, codeExchange(tenant, code), { form: true });
    const tokens = (await exchanged.clone().json()) as TokenBody;
    answers.push(
      ['POST', '/api/v1/iam/oauth/token', async () => exchanged],
      ['POST', '/api/v1/iam/oauth/token', () => postToken(oauthServer, { grant_type: 'password' }, { form: true })],
      ['POST', '/api/v1/iam/oauth/token', () => postToken(oauthServer, { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: 'wrong' }, { form: true })],
      ['POST', '/api/v1/iam/oauth/token', () => untilRefused(() => postToken(oauthServer, { grant_type: 'client_credentials', client_id: spent.clientId, client_secret: spent.clientSecret }, { form: true }))],
      ['POST', '/api/v1/iam/idToken', () => renewAtIdToken(oauthServer, tokens.refresh_token ?? '')],
      ['POST', '/api/v1/iam/idToken', () => oauthServer.fetch(`${issuer}/idToken`, { method: 'POST' })],
      ['GET', '/api/v1/iam/idToken', () => renewAtIdToken(oauthServer, 'not-a-token', 'GET')],
      ['POST', '/api/v1/iam/idToken', async () => untilRefused(async () => renewAtIdToken(oauthServer, (await mintTokens(oauthServer.ctx, spent)).refresh_token ?? ''))],
      ['POST', '/api/v1/iam/oauth/revoke', () => oauthServer.fetch(`${issuer}/oauth/revoke`, form(tenant, { token: tokens.refresh_token ?? '' }))],
      ['POST', '/api/v1/iam/oauth/revoke', () => oauthServer.fetch(`${issuer}/oauth/revoke`, form(tenant, { token: 'x', client_secret: 'wrong' }))],
      ['POST', '/api/v1/iam/oauth/revoke', () => untilRefused(() => oauthServer.fetch(`${issuer}/oauth/revoke`, form(spent, { token: 'x' })))],
      ['GET', '/oauth/authorize', () => untilRefused(() => fetch(authorizeUrl(oauthServer, defaultParams(spent))))],
    );
    const statuses = new Set<string>();
    for (const [method, path, send] of answers) {
      const response = await send();
      if (!response.bodyUsed) await response.text();
      const sent = [...response.headers.keys()].filter((name) => !TRANSPORT.has(name)).sort();
      assert.deepEqual(sent, declaredHeaders(served, method, path, response.status), `${method} ${path} ${response.status}`);
      statuses.add(`${method} ${path} ${response.status}`);
    }
    for (const expected of ['POST /api/v1/iam/oauth/token 401', 'POST /api/v1/iam/oauth/token 429', 'GET /api/v1/iam/idToken 401', 'POST /api/v1/iam/idToken 429', 'POST /api/v1/iam/oauth/revoke 429', 'GET /oauth/authorize 429', 'POST /oauth/authorize 302']) {
      assert.ok(statuses.has(expected), `${expected} among ${[...statuses].join(', ')}`);
    }
    // 503 (the database down) is not reached here; its Retry-After is declared with the 429's.
    for (const path of ['/api/v1/iam/oauth/token', '/api/v1/iam/idToken', '/api/v1/iam/oauth/revoke', '/oauth/authorize']) {
      assert.ok(declaredHeaders(served, path === '/api/v1/iam/idToken' || path === '/oauth/authorize' ? 'GET' : 'POST', path, 503).includes('retry-after'), `${path} 503 Retry-After`);
    }
  } finally {
    await oauthServer.close();
  }
});

/** Headers a client acts on: whichever of them an answer carries, the document must declare for its operation and status. */
const DOCUMENTED = ['cache-control', 'etag', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'www-authenticate', 'allow', 'access-control-allow-origin', 'location'];

/** The declarations of `method path`'s answer `status`, by lower-case name, through the document's $refs. */
function headerDeclarations(doc: Document, method: string, path: string, status: number): Map<string, { schema?: { const?: string } }> {
  const components = doc.components as unknown as { responses: Record<string, { headers?: Record<string, unknown> }>; headers: Record<string, unknown> };
  const resolve = <T>(value: unknown, from: Record<string, unknown>): T => {
    const ref = (value as { $ref?: string }).$ref;
    return (ref ? from[ref.split('/').pop() ?? ''] : value) as T;
  };
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
  assert.ok(response, `${method} ${path} documents ${status}`);
  const { headers = {} } = resolve<{ headers?: Record<string, unknown> }>(response, components.responses);
  return new Map(Object.entries(headers).map(([name, header]) => [name.toLowerCase(), resolve(header, components.headers)]));
}

test('whatever a company-API, metadata or OAuth answer sends of Cache-Control, ETag, rate limits, Retry-After, WWW-Authenticate, Allow, CORS or Location, the document declares for its operation and status, with the value it fixes', async () => {
  const company = await startCompanyServer({ env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  try {
    const { server: api, token, tenant } = company;
    const departmentId = await addDepartment(api.ctx.db, tenant.companyId);
    const person = await addEmployee(api.ctx.db, tenant);
    const served = (await (await fetch(`${api.baseUrl}/openapi.json`)).json()) as Document;
    const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = bearer(token)) =>
      api.fetch(`${api.baseUrl}${url}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const webhook = (await (await call('POST', '/api/v1/company/webhooks', { url: 'http://127.0.0.1:9/hooks' })).json()) as { id: string };
    const etag = (await call('GET', '/api/v1/company/configuration')).headers.get('etag') ?? '';
    const event = { badgeId: person.badgeId, type: 'clock_in', source: 'api' };
    await call('POST', '/api/v1/timeclock/events', { ...event, eventId: randomUUID(), occurredAt: new Date().toISOString() });
    const day = new Date().toISOString().slice(0, 10);
    const answers: Array<[method: string, path: string, send: () => Promise<Response>]> = [
      ['GET', '/api/v1/company/configuration', () => call('GET', '/api/v1/company/configuration')],
      ['GET', '/api/v1/company/configuration', () => call('GET', '/api/v1/company/configuration', undefined, { ...bearer(token), 'if-none-match': etag })],
      ['GET', '/api/v1/company/configuration', () => call('GET', '/api/v1/company/configuration', undefined, {})],
      ['GET', '/api/v1/company/users', () => call('GET', '/api/v1/company/users?limit=2')],
      ['GET', '/api/v1/company/users', () => call('GET', '/api/v1/company/users?limit=0')],
      ['GET', '/api/v1/company/contracts', () => call('GET', '/api/v1/company/contracts')],
      ['GET', '/api/v1/company/timetable', () => call('GET', '/api/v1/company/timetable')],
      ['GET', '/api/v1/feeds/timetable', () => call('GET', '/api/v1/feeds/timetable')],
      ['GET', '/api/v1/company/revenue', () => call('GET', `/api/v1/company/revenue?from=${day}&to=${day}`)],
      ['GET', '/api/v1/company/wage-budget', () => call('GET', '/api/v1/company/wage-budget')],
      ['GET', '/api/v1/timeclock/badges', () => call('GET', '/api/v1/timeclock/badges')],
      ['GET', '/api/v1/timeclock/events', () => call('GET', '/api/v1/timeclock/events')],
      ['GET', '/api/v1/company/changes', () => call('GET', '/api/v1/company/changes?limit=5')],
      ['GET', '/api/v1/company/changes', () => call('GET', '/api/v1/company/changes?cursor=tampered')],
      ['GET', '/api/v1/company/changes/head', () => call('GET', '/api/v1/company/changes/head')],
      ['GET', '/api/v1/company/webhooks', () => call('GET', '/api/v1/company/webhooks')],
      ['GET', '/api/v1/company/webhooks/{id}', () => call('GET', `/api/v1/company/webhooks/${webhook.id}`)],
      ['GET', '/api/v1/company/webhooks/{id}', () => call('GET', '/api/v1/company/webhooks/whe_nope')],
      ['GET', '/api/v1/company/webhooks/{id}/deliveries', () => call('GET', `/api/v1/company/webhooks/${webhook.id}/deliveries`)],
      ['POST', '/api/v1/company/revenue', () => call('POST', '/api/v1/company/revenue', { items: [{ departmentId, date: day, kind: 'realised', amount: 3 }] })],
      ['POST', '/api/v1/company/revenue', () => call('POST', '/api/v1/company/revenue', { items: [{ departmentId, date: day, kind: 'realised', amount: 3.001 }] })],
      ['POST', '/api/v1/timeclock/events', () => call('POST', '/api/v1/timeclock/events', { ...event, eventId: randomUUID(), occurredAt: new Date(Date.now() - 86_400_000).toISOString() })],
      ['POST', '/api/v1/company/webhooks/{id}/rotate-secret', () => call('POST', `/api/v1/company/webhooks/${webhook.id}/rotate-secret`, {})],
      ['POST', '/api/v1/company/webhooks/{id}/rotate-secret', () => call('POST', '/api/v1/company/webhooks/whe_nope/rotate-secret', {})],
      ['GET', '/api/v1/iam/.well-known/openid-configuration', () => call('GET', '/api/v1/iam/.well-known/openid-configuration', undefined, {})],
      ['GET', '/api/v1/iam/.well-known/jwks.json', () => call('GET', '/api/v1/iam/.well-known/jwks.json', undefined, {})],
      ['POST', '/api/v1/iam/oauth/token', () => postToken(api, { grant_type: 'password' })],
      ['POST', '/api/v1/iam/idToken', () => api.fetch(`${api.config.issuer}/idToken`, { method: 'POST' })],
    ];
    const seen = new Set<string>();
    for (const [method, path, send] of answers) {
      const response = await send();
      await response.text();
      const declared = headerDeclarations(served, method, path, response.status);
      const label = `${method} ${path} ${response.status}`;
      for (const name of DOCUMENTED) {
        const value = response.headers.get(name);
        if (value === null) continue;
        assert.ok(declared.has(name), `${label} sends ${name}: ${value}, undeclared (declared: ${[...declared.keys()].join(', ')})`);
        const fixed = declared.get(name)?.schema?.const;
        if (fixed !== undefined) assert.equal(value, fixed, `${label} ${name}`);
      }
      seen.add(label);
    }
    for (const expected of ['GET /api/v1/company/configuration 304', 'GET /api/v1/company/configuration 401', 'GET /api/v1/company/webhooks/{id} 404', 'POST /api/v1/company/revenue 400', 'POST /api/v1/timeclock/events 409', 'POST /api/v1/company/webhooks/{id}/rotate-secret 404']) {
      assert.ok(seen.has(expected), `${expected} among ${[...seen].join(', ')}`);
    }
  } finally {
    await company.server.close();
  }
});

test('the operator API is documented with the adminToken scheme and the shared 503', () => {
  const operations = Object.values(document.paths).flatMap((item) => Object.values(item)).filter((operation) => operation.tags?.includes('operator'));
  assert.ok(operations.length >= 10, `${operations.length} operator operations`);
  for (const operation of operations) {
    assert.deepEqual(operation.security, [{ adminToken: [] }], operation.operationId);
    assert.deepEqual(operation.responses['503'], { $ref: '#/components/responses/ServiceUnavailable' }, operation.operationId);
  }
});

test('the login page is documented on AUTH_URL when it differs from BASE_URL, answering HTML', () => {
  const item = document.paths['/oauth/authorize'] as unknown as { servers?: { url: string }[] } | undefined;
  assert.deepEqual(item?.servers?.map((s) => s.url), ['http://login.localhost:9999']);
  for (const method of ['get', 'post']) {
    const responses = document.paths['/oauth/authorize']?.[method]?.responses ?? {};
    assert.deepEqual(Object.keys(responses['200']?.content ?? {}), ['text/html'], method);
  }
});

async function lint(served: Document): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'wfs-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(served));
    const cli = join(REPO, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    // lint exits non-zero on errors; the JSON report on stdout says which.
    const { stdout } = await run(process.execPath, [cli, 'lint', file, '--config', join(REPO, 'redocly.yaml'), '--format=json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout) as { problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
    return report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('Redocly lint (redocly.yaml) finds no error and no warning in the served documents, with and without the operator API', async () => {
  assert.deepEqual(await lint(document), []);
  assert.deepEqual(await lint(publicDocument), []);
});
