// The operator API (contract: operator side) under /api/v1/admin: off without ADMIN_TOKEN, Bearer ADMIN_TOKEN
// otherwise, and the same actions and results as `wfs … --json`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { assertRefusedWithin } from '../support/http.ts';
import { bearer, clientTakesSecret, mintTokens, provisionTenant } from '../support/tenants.ts';
import { baseDocument, mixedProblems, user } from '../company/fixtures.ts';

const ADMIN_TOKEN = 'operator-token-for-tests-0123456789';

let server: TestServer;
let off: TestServer;
before(async () => {
  [server, off] = await Promise.all([startTestServer({ ADMIN_TOKEN }, { inProcess: true }), startTestServer({}, { inProcess: true })]);
});
after(async () => {
  await Promise.all([server.close(), off.close()]);
});

interface Answer {
  status: number;
  type: string;
  body: Record<string, unknown>;
  headers: Headers;
}

async function admin(method: string, path: string, body?: unknown, token = ADMIN_TOKEN, target = server): Promise<Answer> {
  const response = await target.fetch(`${target.baseUrl}/api/v1/admin${path}`, {
    method,
    headers: { ...(token ? bearer(token) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

async function newCompany(): Promise<string> {
  const { body } = await admin('POST', '/organisations', { name: 'Acme' });
  const company = await admin('POST', '/companies', { organisationId: body.organisationId, name: 'Acme Utrecht', timezone: 'Europe/Amsterdam', currency: 'EUR' });
  return String(company.body.companyId);
}

async function newClient(): Promise<{ clientId: string; clientSecret: string }> {
  const { body } = await admin('POST', '/api-clients', { companyId: await newCompany(), name: 'Rostering', redirectUris: ['https://app.example.com/cb'] });
  return body as { clientId: string; clientSecret: string };
}

test('without ADMIN_TOKEN every operator route answers 404: the API is off', async () => {
  for (const [method, path] of [['POST', '/organisations'], ['POST', '/api-clients/cli_x/disable'], ['POST', '/signing-keys/rotate']] as const) {
    const answer = await admin(method, path, { name: 'Acme' }, ADMIN_TOKEN, off);
    assert.equal(answer.status, 404, path);
    assert.match(answer.type, /^application\/problem\+json/);
    assert.equal(answer.body.code, 'not_found');
  }
  assert.equal(await off.ctx.db.selectFrom('organisations').select('id').executeTakeFirst(), undefined, 'nothing was created');
});

test('a missing token is 401 with a Bearer challenge; a wrong one 401 invalid_token; nothing happens', async () => {
  const missing = await admin('POST', '/organisations', { name: 'Acme' }, '');
  assert.equal(missing.status, 401);
  assert.match(missing.type, /^application\/problem\+json/);
  assert.equal(missing.body.code, 'missing_token');
  assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/);

  for (const wrong of [`${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1), 'operator-token-for-tests-0123456788']) {
    const answer = await admin('POST', '/organisations', { name: 'Wrong' }, wrong);
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'invalid_token');
    assert.match(answer.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  }
  const basic = await server.fetch(`${server.baseUrl}/api/v1/admin/organisations`, { method: 'POST', headers: { authorization: `Basic ${ADMIN_TOKEN}` } });
  assert.equal(basic.status, 401);
  const wrongNames = await server.ctx.db.selectFrom('organisations').select('id').where('name', '=', 'Wrong').execute();
  assert.deepEqual(wrongNames, []);
});

test('POST /organisations and /companies create them (201) and answer their ids', async () => {
  const org = await admin('POST', '/organisations', { name: 'Acme Hospitality' });
  assert.equal(org.status, 201);
  assert.deepEqual(Object.keys(org.body), ['organisationId']);
  const company = await admin('POST', '/companies', { organisationId: org.body.organisationId, name: 'Acme Gent', timezone: 'Europe/Brussels', currency: 'EUR', locale: 'nl-BE' });
  assert.equal(company.status, 201);
  assert.deepEqual(Object.keys(company.body), ['companyId']);
  const row = await server.ctx.db.selectFrom('companies').selectAll().where('id', '=', String(company.body.companyId)).executeTakeFirstOrThrow();
  assert.deepEqual([row.organisation_id, row.name, row.timezone, row.locale], [org.body.organisationId, 'Acme Gent', 'Europe/Brussels', 'nl-BE']);
});

test('POST /api-clients and /api-users answer the credentials, shown once', async () => {
  const companyId = await newCompany();
  const created = await admin('POST', '/api-clients', { companyId, name: 'Rostering', redirectUris: ['https://app.example.com/cb', 'http://127.0.0.1/cb'] });
  assert.equal(created.status, 201);
  assert.deepEqual(Object.keys(created.body).sort(), ['clientId', 'clientSecret']);
  const client = await server.ctx.db.selectFrom('api_clients').selectAll().where('id', '=', String(created.body.clientId)).executeTakeFirstOrThrow();
  assert.ok(await clientTakesSecret(server.ctx.db, client.id, String(created.body.clientSecret)));
  assert.deepEqual(JSON.parse(client.redirect_uris), ['https://app.example.com/cb', 'http://127.0.0.1/cb']);

  const user = await admin('POST', '/api-users', { clientId: created.body.clientId, email: 'Planner@Example.com' });
  assert.equal(user.status, 201);
  assert.deepEqual(Object.keys(user.body).sort(), ['email', 'secret', 'userId']);
  assert.equal(user.body.email, 'planner@example.com');

  const again = await admin('POST', '/api-users', { clientId: created.body.clientId, email: 'planner@example.com' });
  assert.equal(again.status, 409);
  assert.equal(again.body.code, 'email_taken');
});

test('grants are enabled with POST and disabled with DELETE on /api-clients/{id}/grants/{grant}', async () => {
  const { clientId } = await newClient();
  const enabled = await admin('POST', `/api-clients/${clientId}/grants/client_credentials`);
  assert.equal(enabled.status, 200);
  assert.deepEqual(enabled.body, { clientId, grants: ['authorization_code', 'client_credentials'] });
  const disabled = await admin('DELETE', `/api-clients/${clientId}/grants/client_credentials`);
  assert.deepEqual([disabled.status, disabled.body], [200, { clientId, grants: ['authorization_code'] }]);

  const unknown = await admin('POST', `/api-clients/${clientId}/grants/password`);
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'validation_failed');
  const missing = await admin('POST', '/api-clients/cli_nope/grants/refresh_token');
  assert.deepEqual([missing.status, missing.body.code], [404, 'not_found']);
});

test('rotate-secret answers a new secret; the old one no longer matches', async () => {
  const { clientId, clientSecret } = await newClient();
  const rotated = await admin('POST', `/api-clients/${clientId}/rotate-secret`);
  assert.equal(rotated.status, 200);
  assert.deepEqual(Object.keys(rotated.body).sort(), ['clientId', 'clientSecret']);
  assert.ok(await clientTakesSecret(server.ctx.db, clientId, String(rotated.body.clientSecret)));
  assert.ok(!(await clientTakesSecret(server.ctx.db, clientId, clientSecret)));
});

test('disabling a client revokes its ID tokens on the secured API within 5 s; enabling answers disabled: false', async () => {
  const { tenant, token } = await signedInCompany(server.ctx);
  const configuration = () => server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) }).then((r) => r.status);
  assert.equal(await configuration(), 200);

  const disabled = await admin('POST', `/api-clients/${tenant.clientId}/disable`);
  assert.deepEqual([disabled.status, disabled.body], [200, { clientId: tenant.clientId, disabled: true }]);
  await assertRefusedWithin(server.baseUrl, token, 5_000);

  const enabled = await admin('POST', `/api-clients/${tenant.clientId}/enable`);
  assert.deepEqual([enabled.status, enabled.body], [200, { clientId: tenant.clientId, disabled: false }]);
  assert.equal(await configuration(), 401, 'no revoked grant comes back');
});

test('api-users disable and enable answer the user and its state', async () => {
  const tenant = await provisionTenant(server.ctx);
  const disabled = await admin('POST', `/api-users/${tenant.userId}/disable`);
  assert.deepEqual([disabled.status, disabled.body], [200, { userId: tenant.userId, disabled: true }]);
  const row = await server.ctx.db.selectFrom('api_users').select('disabled').where('id', '=', tenant.userId).executeTakeFirstOrThrow();
  assert.equal(row.disabled, 1);
  const enabled = await admin('POST', `/api-users/${tenant.userId}/enable`);
  assert.deepEqual([enabled.status, enabled.body], [200, { userId: tenant.userId, disabled: false }]);
  const missing = await admin('POST', '/api-users/usr_nope/disable');
  assert.equal(missing.status, 404);
});

test('POST /signing-keys/rotate publishes a key now that signs after activateInSeconds (default 120)', async () => {
  const before = Date.now();
  const rotated = await admin('POST', '/signing-keys/rotate');
  assert.equal(rotated.status, 200);
  assert.deepEqual(Object.keys(rotated.body).sort(), ['activatesAt', 'kid']);
  const activatesAt = Date.parse(String(rotated.body.activatesAt));
  assert.ok(activatesAt >= before + 120_000 && activatesAt <= Date.now() + 120_000);
  const row = await server.ctx.db.selectFrom('signing_keys').select(['activates_at', 'unpublish_at', 'private_jwk']).where('kid', '=', String(rotated.body.kid)).executeTakeFirstOrThrow();
  assert.deepEqual([row.activates_at, row.unpublish_at], [activatesAt, null]);
  assert.match(row.private_jwk, /^v2\./, 'the private key is stored sealed');
  assert.doesNotMatch(row.private_jwk, /"d"/);

  const soon = await admin('POST', '/signing-keys/rotate', { activateInSeconds: 0 });
  assert.equal(soon.status, 200);
  assert.ok(Date.parse(String(soon.body.activatesAt)) <= Date.now());
  const bad = await admin('POST', '/signing-keys/rotate', { activateInSeconds: -1 });
  assert.equal(bad.status, 400);
  assert.deepEqual((bad.body.errors as { path: string }[]).map((e) => e.path), ['/activateInSeconds']);
});

test('POST /signing-keys/{kid}/withdraw answers as wfs withdraw-signing-key: the key leaves the JWKS now, a replacement signs at once; an unpublished kid is 404', async () => {
  const signing = await admin('POST', '/signing-keys/rotate', { activateInSeconds: 0 });
  const kid = String(signing.body.kid);
  const withdrawn = await admin('POST', `/signing-keys/${kid}/withdraw`);
  assert.equal(withdrawn.status, 200);
  assert.deepEqual(Object.keys(withdrawn.body).sort(), ['kid', 'replacement', 'withdrawnAt']);
  assert.equal(withdrawn.body.kid, kid);
  const replacement = withdrawn.body.replacement as { kid: string; activatesAt: string };
  assert.ok(Date.parse(replacement.activatesAt) <= Date.now(), 'the replacement signs at once');
  const jwks = (await (await server.fetch(`${server.config.issuer}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
  const published = jwks.keys.map((key) => key.kid);
  assert.ok(published.includes(replacement.kid) && !published.includes(kid));

  const again = await admin('POST', `/signing-keys/${kid}/withdraw`);
  assert.equal(again.status, 404);
  assert.equal(again.body.code, 'not_found');
  assert.match(String(again.body.detail), new RegExp(`^No published signing key ${kid} `));
});

/** The kid in a JWT's header. */
function kidOf(jwt: string): string {
  return (JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
}

/**
 * An instance whose key ring polls only every minute, so that what it signs and refuses right after an
 * operator's key change shows whether the change reached its own ring at once, not a poll.
 */
async function withSlowKeyRing(run: (slow: TestServer) => Promise<void>): Promise<void> {
  const slow = await startTestServer({ ADMIN_TOKEN, KEY_REFRESH_MS: '60000' }, { inProcess: true });
  try {
    await run(slow);
  } finally {
    await slow.close();
  }
}

test('withdrawing a key through the operator API applies to the serving instance before it answers: it signs with the replacement and refuses the withdrawn key\'s tokens, cached or not', async () => {
  await withSlowKeyRing(async (slow) => {
    const { tenant, token: cached } = await signedInCompany(slow.ctx);
    const unseen = (await mintTokens(slow.ctx, tenant)).id_token;
    const configuration = (token: string) => slow.fetch(`${slow.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
    assert.equal((await configuration(cached)).status, 200, 'verified, and so cached, before the leak is known');
    const leaked = kidOf(cached);

    const withdrawn = await admin('POST', `/signing-keys/${leaked}/withdraw`, undefined, ADMIN_TOKEN, slow);
    assert.equal(withdrawn.status, 200);
    const replacement = withdrawn.body.replacement as { kid: string };
    assert.equal(kidOf((await mintTokens(slow.ctx, tenant)).id_token), replacement.kid, 'the next token is signed by the replacement');
    for (const [what, token] of [['the cached token', cached], ['a token not seen before', unseen]] as const) {
      const refused = await configuration(token);
      assert.equal(refused.status, 401, what);
      assert.equal(((await refused.json()) as { code: string }).code, 'invalid_token', what);
    }
  });
});

test('a rotation through the operator API that activates at once signs on the serving instance from its answer on; the old key\'s tokens keep verifying', async () => {
  await withSlowKeyRing(async (slow) => {
    const { tenant, token } = await signedInCompany(slow.ctx);
    const rotated = await admin('POST', '/signing-keys/rotate', { activateInSeconds: 0 }, ADMIN_TOKEN, slow);
    assert.equal(rotated.status, 200);
    assert.equal(kidOf((await mintTokens(slow.ctx, tenant)).id_token), rotated.body.kid, 'the next token is signed by the new key');
    const old = await slow.fetch(`${slow.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
    assert.equal(old.status, 200, 'the retired key is retained');
  });
});

test('bad bodies are 400 problem+json listing every problem, from the schema or from the rules', async () => {
  const schema = await admin('POST', '/companies', { name: 'Acme', timezone: 'Europe/Amsterdam', currency: 'EUR', colour: 'red' });
  assert.equal(schema.status, 400);
  assert.match(schema.type, /^application\/problem\+json/);
  assert.equal(schema.body.code, 'validation_failed');
  assert.deepEqual((schema.body.errors as { path: string }[]).map((e) => e.path).sort(), ['/colour', '/organisationId']);

  const { body } = await admin('POST', '/organisations', { name: 'Acme' });
  const rules = await admin('POST', '/companies', { organisationId: body.organisationId, name: ' ', timezone: 'Mars/Olympus', currency: 'euro' });
  assert.equal(rules.status, 400);
  assert.deepEqual(rules.body.errors, [
    { path: '/name', message: 'is required' },
    { path: '/timezone', message: 'must be an IANA time zone such as Europe/Amsterdam' },
    { path: '/currency', message: 'must be an ISO 4217 code such as EUR' },
  ]);

  const client = await admin('POST', '/api-clients', { companyId: 'cmp_x', name: 'X', redirectUris: ['not a uri', 'https://ok.example/cb#frag'] });
  assert.equal(client.status, 400);
  assert.deepEqual((client.body.errors as { path: string }[]).map((e) => e.path), ['/redirectUris/0', '/redirectUris/1']);

  const ports = ['http://127.0.0.1:99999/cb', 'http://127.0.0.1:0/cb', 'http://127.0.0.1:01/cb', 'https://ok.example:65536/cb', 'https://ok.example:/cb', 'https://ok.example/c b', 'https://ok.example/%zz'];
  const badPorts = await admin('POST', '/api-clients', { companyId: 'cmp_x', name: 'X', redirectUris: ['https://ok.example:8443/cb', ...ports] });
  assert.equal(badPorts.status, 400);
  assert.deepEqual((badPorts.body.errors as { path: string }[]).map((e) => e.path), ports.map((_uri, i) => `/redirectUris/${i + 1}`));
  assert.match(JSON.stringify(badPorts.body.errors), /must have a port from 1 to 65535/);

  const unknownCompany = await admin('POST', '/api-clients', { companyId: 'cmp_x', name: 'X', redirectUris: ['https://ok.example/cb'] });
  assert.deepEqual([unknownCompany.status, unknownCompany.body.code], [404, 'not_found']);
});

test('operator bodies are JSON only: a form, text or XML is 415 problem+json and changes nothing', async () => {
  const send = async (method: string, path: string, body: string, contentType: string) => {
    const response = await server.fetch(`${server.baseUrl}/api/v1/admin${path}`, { method, headers: { 'content-type': contentType, ...bearer(ADMIN_TOKEN) }, body });
    return { status: response.status, type: response.headers.get('content-type') ?? '', body: (await response.json()) as Record<string, unknown>, requestId: response.headers.get('x-request-id') };
  };
  const { body: org } = await admin('POST', '/organisations', { name: 'Typed' });
  const cases: Array<[string, string, string, string]> = [
    ['POST', '/organisations', 'name=Formed', 'application/x-www-form-urlencoded'],
    ['POST', '/organisations', '{"name":"Texted"}', 'text/plain'],
    ['POST', '/organisations', '<name>Marked</name>', 'application/xml'],
    ['POST', '/console-invitations', `organisationId=${String(org.organisationId)}&email=a@example.com`, 'application/x-www-form-urlencoded'],
    ['PUT', `/organisations/${String(org.organisationId)}/sso/enforcement`, 'enforceSso=true', 'application/x-www-form-urlencoded'],
  ];
  for (const [method, path, body, contentType] of cases) {
    const answer = await send(method, path, body, contentType);
    assert.deepEqual([answer.status, answer.body.code, answer.body.requestId], [415, 'unsupported_media_type', answer.requestId], `${path} as ${contentType}`);
    assert.match(answer.type, /^application\/problem\+json/);
  }
  const stored = await server.ctx.db.selectFrom('organisations').select('name').where('name', 'in', ['Formed', 'Texted', 'Marked']).execute();
  assert.deepEqual(stored, [], 'nothing was created');
});

test('the OpenAPI document declares 413 (with the route\'s own limit) and 415 on every operator operation that takes a body', async () => {
  type Operation = { requestBody?: { content: Record<string, unknown> }; responses: Record<string, { description: string }> };
  const document = (await (await server.fetch(`${server.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
  const withBodies = Object.entries(document.paths).filter(([path]) => path.startsWith('/api/v1/admin/'))
    .flatMap(([path, item]) => Object.entries(item).filter(([, operation]) => operation.requestBody).map(([method, operation]) => [`${method} ${path}`, operation] as const));
  assert.ok(withBodies.length >= 10, `${withBodies.length} operator operations take a body`);
  for (const [name, operation] of withBodies) {
    assert.deepEqual(Object.keys(operation.requestBody!.content), ['application/json'], name);
    const limit = name === 'post /api/v1/admin/companies/{companyId}/import' ? '64 MiB' : '64 KiB';
    assert.equal(operation.responses['413']?.description, `Body over ${limit}`, name);
    assert.equal(operation.responses['415']?.description, 'Body is not application/json', name);
  }
});

test('creating an organisation or a company and importing are operator changes in the organisation\'s audit log', async () => {
  const { body: org } = await admin('POST', '/organisations', { name: 'Audited' });
  const organisationId = String(org.organisationId);
  const { body: company } = await admin('POST', '/companies', { organisationId, name: 'Audited Gent', timezone: 'Europe/Brussels', currency: 'EUR' });
  const companyId = String(company.companyId);
  const imported = await admin('POST', `/companies/${companyId}/import`, { ...baseDocument(), users: [user('ann')] });
  assert.equal(imported.status, 200);
  const rejected = await admin('POST', `/companies/${companyId}/import`, { shifts: [{}] });
  assert.equal(rejected.status, 400);

  const rows = await server.ctx.db.selectFrom('audit_log').selectAll().where('organisation_id', '=', organisationId).orderBy('at').orderBy('id').execute();
  assert.deepEqual(rows.map((r) => [r.event, r.outcome, r.actor_kind, r.detail]), [
    ['operator_change', 'success', 'operator', 'organisation_created'],
    ['operator_change', 'success', 'operator', 'company_created'],
    ['operator_change', 'success', 'operator', 'company_data_imported'],
  ], 'a rejected import changed nothing and is not an entry');
  assert.deepEqual(rows.map((r) => JSON.parse(r.context ?? 'null') as unknown), [
    { name: 'Audited' },
    { companyId, name: 'Audited Gent' },
    { companyId, counts: imported.body },
  ]);
});

/** What the contract asks of every refused body: 400, problem+json, code validation_failed, the errors by path. */
function assertRefused(answer: Answer, errors: { path: string; message: string }[]): void {
  assert.equal(answer.status, 400);
  assert.match(answer.type, /^application\/problem\+json/);
  assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'detail', 'errors', 'requestId', 'status', 'title', 'type']);
  assert.deepEqual([answer.body.status, answer.body.code], [400, 'validation_failed']);
  assert.deepEqual(answer.body.errors, errors);
}

test('operator bodies are checked against their documented constraints: lengths, patterns, the time-zone format', async () => {
  const long = 'x'.repeat(201);
  assertRefused(await admin('POST', '/organisations', { name: long }), [{ path: '/name', message: 'must be at most 200 characters' }]);
  assertRefused(await admin('POST', '/organisations', { name: '' }), [{ path: '/name', message: 'is required' }]);

  const { body } = await admin('POST', '/organisations', { name: 'Acme' });
  const company = { organisationId: body.organisationId, name: 'Acme', timezone: 'Europe/Amsterdam', currency: 'EUR' };
  assertRefused(await admin('POST', '/companies', { ...company, timezone: '+01:00', locale: 'Dutch' }), [
    { path: '/timezone', message: 'must be an IANA time zone such as Europe/Amsterdam' },
    { path: '/locale', message: 'must be a BCP 47 tag such as nl-NL' },
  ]);
  assertRefused(await admin('POST', '/companies', { ...company, organisationId: 'o'.repeat(101) }), [{ path: '/organisationId', message: 'must be at most 100 characters' }]);

  const companyId = await newCompany();
  const client = { companyId, name: 'Rostering', redirectUris: ['https://app.example.com/cb'] };
  assertRefused(await admin('POST', '/api-clients', { ...client, redirectUris: [] }), [{ path: '/redirectUris', message: 'must hold at least 1 item' }]);
  const many = Array.from({ length: 21 }, (_v, i) => `https://app.example.com/cb${i}`);
  assertRefused(await admin('POST', '/api-clients', { ...client, redirectUris: many }), [{ path: '/redirectUris', message: 'must hold at most 20 items' }]);
  assertRefused(await admin('POST', '/api-clients', { ...client, redirectUris: [`https://app.example.com/${'a'.repeat(2000)}`] }), [{ path: '/redirectUris/0', message: 'must be at most 2000 characters' }]);
  assertRefused(await admin('POST', '/api-clients', { ...client, name: '   ' }), [{ path: '/name', message: 'is required' }]);

  const { clientId } = await newClient();
  assertRefused(await admin('POST', '/api-users', { clientId, email: 'planner' }), [{ path: '/email', message: 'must be an email address' }]);
  assertRefused(await admin('POST', '/api-users', { clientId, email: `${'p'.repeat(250)}@example.com` }), [{ path: '/email', message: 'must be at most 254 characters' }]);
  const { body: declined } = await admin('POST', '/grant-requests/grq_nope/decline', { reason: '  ' });
  assert.deepEqual(declined.errors, [{ path: '/reason', message: 'is required' }]);
  assert.equal(await server.ctx.db.selectFrom('companies').select('id').where('name', '=', long).executeTakeFirst(), undefined, 'nothing refused was stored');
});

test('an email is taken as typed around it: surrounding white space dropped, lower case; a name without it', async () => {
  const { clientId } = await newClient();
  const user = await admin('POST', '/api-users', { clientId, email: '  Planner@Example.COM \n' });
  assert.deepEqual([user.status, user.body.email], [201, 'planner@example.com']);
  const host = await admin('POST', '/api-users', { clientId, email: 'ops@intranet' });
  assert.deepEqual([host.status, host.body.email], [201, 'ops@intranet'], 'the platform\'s email rule, as for console users and employees');
  const { body } = await admin('POST', '/organisations', { name: '  Acme  ' });
  const row = await server.ctx.db.selectFrom('organisations').select('name').where('id', '=', String(body.organisationId)).executeTakeFirstOrThrow();
  assert.equal(row.name, 'Acme');
});

test('the OpenAPI document shows the operator bodies\' constraints to integrators and the generated client', async () => {
  const document = (await (await server.fetch(`${server.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }> } }>> };
  const body = (path: string) => document.paths[path]!.post!.requestBody.content['application/json']!.schema.properties;
  assert.deepEqual(body('/api/v1/admin/organisations').name, { maxLength: 200, pattern: '\\S', type: 'string', description: 'Display name of the customer organisation; stored without surrounding white space' });
  const company = body('/api/v1/admin/companies');
  assert.deepEqual([company.timezone!.format, company.currency!.pattern, company.locale!.pattern], ['time-zone', '^[A-Z]{3}$', '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$']);
  assert.deepEqual([body('/api/v1/admin/api-clients').redirectUris!.minItems, body('/api/v1/admin/api-clients').redirectUris!.maxItems], [1, 20]);
  assert.deepEqual([body('/api/v1/admin/api-users').email!.maxLength, body('/api/v1/admin/api-users').email!.pattern], [254, '^\\s*[^@\\s]+@[^@\\s]+\\s*$']);
});

test('POST /companies/{id}/import answers the counts per entity; a bad document is 400 with every problem', async () => {
  const companyId = await newCompany();
  const document = { ...baseDocument(), users: [user('ann')] };
  const imported = await admin('POST', `/companies/${companyId}/import`, document);
  assert.equal(imported.status, 200);
  assert.deepEqual(imported.body.departments, { created: 2, updated: 0, deleted: 0 });
  assert.deepEqual(imported.body.users, { created: 1, updated: 0, deleted: 0 });
  assert.deepEqual(Object.keys(imported.body).sort(), ['contractTypes', 'contracts', 'departments', 'positions', 'shiftTypes', 'shifts', 'users']);

  const bad = await admin('POST', `/companies/${companyId}/import`, { ...document, users: [user('bob', { employmentStart: 'soon', departmentRefs: ['cellar'] })], rosters: [] });
  assert.equal(bad.status, 400);
  assert.match(bad.type, /^application\/problem\+json/);
  assert.equal(bad.body.code, 'invalid_import');
  const paths = (bad.body.errors as { path: string }[]).map((e) => e.path);
  assert.ok(paths.includes('/rosters') && paths.includes('/users/0/employmentStart'), paths.join(', '));
  const employees = await server.ctx.db.selectFrom('employees').select('ref').where('company_id', '=', companyId).execute();
  assert.deepEqual(employees.map((e) => e.ref), ['ann'], 'nothing of the bad document was stored');

  const unknown = await admin('POST', '/companies/cmp_nope/import', document);
  assert.equal(unknown.status, 404);
});

test('a rejected import lists each entry\'s problems of shape and of reference together, by entry then field', async () => {
  const companyId = await newCompany();
  // The black-box review's example: the bad start hid both unknown refs ("has 1 problem").
  const shift = { ref: 's', date: '2026-06-01', start: '25:00', end: '17:00', departmentRef: 'nope', shiftTypeRef: 'nope' };
  const reviewed = await admin('POST', `/companies/${companyId}/import`, { shifts: [shift] });
  assert.equal(reviewed.status, 400);
  assert.equal(reviewed.body.detail, 'The import document has 3 problems; nothing was imported.');
  assert.deepEqual(reviewed.body.errors, [
    { path: '/shifts/0/start', message: 'must be a time as HH:MM (00:00 to 23:59)' },
    { path: '/shifts/0/departmentRef', message: 'refers to no department: "nope" is neither in this document nor stored for this company' },
    { path: '/shifts/0/shiftTypeRef', message: 'refers to no shift type: "nope" is neither in this document nor stored for this company' },
  ]);
  const { document, errors } = mixedProblems();
  const mixed = await admin('POST', `/companies/${companyId}/import`, document);
  assert.equal(mixed.status, 400);
  assert.equal(mixed.body.detail, `The import document has ${errors.length} problems; nothing was imported.`);
  assert.deepEqual(mixed.body.errors, errors);
});

test('a rejected import lists every problem, however many: 12,000 for 2,000 empty shifts, in the problem shape', async () => {
  const companyId = await newCompany();
  const bad = await admin('POST', `/companies/${companyId}/import`, { departments: [{ ref: 'd', name: 'D', code: 'D' }], shifts: Array.from({ length: 2000 }, () => ({})) });
  assert.equal(bad.status, 400);
  assert.match(bad.type, /^application\/problem\+json/);
  assert.equal(bad.body.code, 'invalid_import');
  assert.equal(bad.body.detail, 'The import document has 12000 problems; nothing was imported.');
  assert.equal(bad.body.requestId, bad.headers.get('x-request-id'));
  const errors = bad.body.errors as Array<{ path: string; message: string }>;
  assert.equal(errors.length, 12_000);
  assert.deepEqual(errors[0], { path: '/shifts/0/ref', message: 'is required' });
  assert.deepEqual(errors.at(-1), { path: '/shifts/1999/shiftTypeRef', message: 'is required' });
  const stored = await server.ctx.db.selectFrom('departments').select('ref').where('company_id', '=', companyId).execute();
  assert.deepEqual(stored, [], 'nothing of the bad document was stored');
});

test('the import body, read in a worker thread, is refused as any JSON body: not JSON, not UTF-8, too deep, NUL, another content type', async () => {
  const companyId = await newCompany();
  const send = async (body: string | Buffer, contentType = 'application/json') => {
    const response = await server.fetch(`${server.baseUrl}/api/v1/admin/companies/${companyId}/import`, { method: 'POST', headers: { 'content-type': contentType, ...bearer(ADMIN_TOKEN) }, body });
    return { status: response.status, body: (await response.json()) as { code: string; detail: string; errors?: Array<{ path: string }> }, requestId: response.headers.get('x-request-id') };
  };
  const cases: Array<[string, string | Buffer, number, string, string?]> = [
    ['not JSON', '{"departments":[', 400, 'malformed_body'],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 400, 'malformed_body'],
    ['65 levels deep', `{"departments":${'['.repeat(64)}${']'.repeat(64)}}`, 400, 'malformed_body'],
    ['a NUL in a name', '{"departments":[{"ref":"d","name":"a\\u0000b","code":"D"}]}', 400, 'invalid_character'],
    ['a form', 'departments=1', 415, 'unsupported_media_type', 'application/x-www-form-urlencoded'],
  ];
  for (const [name, body, status, code, contentType] of cases) {
    const answer = await send(body, contentType);
    assert.equal(answer.status, status, name);
    assert.equal(answer.body.code, code, name);
    assert.ok(answer.requestId, name);
  }
  assert.deepEqual((await send('{"departments":[{"ref":"d","name":"a\\u0000b","code":"D"}]}')).body.errors?.map((e) => e.path), ['/departments/0/name']);
  // No body at all reaches no body parser (a 500 before, found by the fuzz test).
  const bodiless = await server.fetch(`${server.baseUrl}/api/v1/admin/companies/${companyId}/import`, { method: 'POST', headers: bearer(ADMIN_TOKEN) });
  assert.equal(bodiless.status, 400);
  assert.equal(((await bodiless.json()) as { code: string }).code, 'malformed_body');
  const stored = await server.ctx.db.selectFrom('departments').select('ref').where('company_id', '=', companyId).execute();
  assert.deepEqual(stored, []);
});
