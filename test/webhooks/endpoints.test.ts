// The webhook endpoints API (CONTRACT §7): create, list, read, change, delete, rotate; secrets shown
// only when made and sealed at rest; destinations checked at creation; one company never reaches
// another's endpoints.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useCompanyServer, signedInCompany } from '../support/company.ts';
import type { TestServer } from '../support/server.ts';
import { getJson, postJson, type ProblemBody } from '../support/http.ts';
import { WEBHOOKS, createEndpoint, deliveries, patchEndpoint, sendTest, type EndpointBody } from './helpers.ts';
import { eventually } from '../multi-instance/client.ts';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

type Route = [method: string, path: string, body: unknown];

/** Every route of one endpoint, with a body that would change something where it takes one. */
function endpointRoutes(id: string): Route[] {
  return [
    ['GET', `${WEBHOOKS}/${id}`, undefined],
    ['PATCH', `${WEBHOOKS}/${id}`, { enabled: false }],
    ['DELETE', `${WEBHOOKS}/${id}`, undefined],
    ['POST', `${WEBHOOKS}/${id}/rotate-secret`, undefined],
    ['POST', `${WEBHOOKS}/${id}/test`, undefined],
    ['GET', `${WEBHOOKS}/${id}/deliveries`, undefined],
    ['POST', `${WEBHOOKS}/${id}/deliveries/whd_any/retry`, undefined],
    ['POST', `${WEBHOOKS}/${id}/replay`, { from: '2026-11-25T09:00:00Z', to: '2026-11-25T10:00:00Z' }],
  ];
}

function send(server: TestServer, token: string, method: string, path: string, body: unknown): Promise<Response> {
  return server.fetch(`${server.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
}

describe('webhook endpoints', () => {
  const company = useCompanyServer({ env: { WEBHOOK_ALLOW_INSECURE: '1' }, inProcess: true });

  it('creates an endpoint with a whsec_ secret shown once, then lists, reads and changes it', async () => {
    const { baseUrl } = company.server;
    const created = await createEndpoint(baseUrl, company.token, { url: 'http://127.0.0.1:9/hooks', types: ['shift.created', 'shift.deleted'], description: 'Payroll' });
    assert.match(created.secret, SECRET);
    assert.equal(created.enabled, true);
    assert.deepEqual(created.types, ['shift.created', 'shift.deleted']);
    assert.equal(created.description, 'Payroll');
    assert.match(created.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+0[12]:00$/);

    const read = await getJson<EndpointBody>(`${baseUrl}${WEBHOOKS}/${created.id}`, company.token);
    assert.equal(read.status, 200);
    assert.equal(read.body.secret, undefined, 'the secret is not shown again');
    const { secret: _secret, ...shown } = created;
    assert.deepEqual(read.body, shown);

    const listed = await getJson<{ data: EndpointBody[]; nextCursor: string | null }>(`${baseUrl}${WEBHOOKS}`, company.token);
    assert.ok(listed.body.data.some((endpoint) => endpoint.id === created.id && endpoint.secret === undefined));

    const changed = await patchEndpoint(baseUrl, company.token, created.id, { types: null, description: null, enabled: false });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.types, null);
    assert.equal(changed.body.description, null);
    assert.equal(changed.body.enabled, false);
    assert.equal(changed.body.disabledReason, 'manual');
    const enabled = await patchEndpoint(baseUrl, company.token, created.id, { enabled: true });
    assert.equal(enabled.body.enabled, true);
    assert.equal(enabled.body.disabledReason, null);
  });

  it('answers both collections with an ETag and If-None-Match with an empty 304, until they change', async () => {
    const { baseUrl } = company.server;
    const created = await createEndpoint(baseUrl, company.token, { url: 'http://127.0.0.1:9/etag' });
    const deliveriesPath = `${WEBHOOKS}/${created.id}/deliveries`;
    for (const path of [WEBHOOKS, deliveriesPath]) {
      const first = await send(company.server, company.token, 'GET', path, undefined);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[\w-]+"$/, path);
      const again = await company.server.fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${company.token}`, 'if-none-match': etag ?? '' } });
      assert.equal(again.status, 304, path);
      assert.equal(await again.text(), '');
    }
    const before = (await send(company.server, company.token, 'GET', WEBHOOKS, undefined)).headers.get('etag');
    await patchEndpoint(baseUrl, company.token, created.id, { description: 'changed' });
    assert.notEqual((await send(company.server, company.token, 'GET', WEBHOOKS, undefined)).headers.get('etag'), before, 'a changed endpoint changes the list\'s ETag');
    const empty = (await send(company.server, company.token, 'GET', deliveriesPath, undefined)).headers.get('etag');
    await sendTest(baseUrl, company.token, created.id);
    await eventually('the failed attempt is logged', 5000, async () => (await deliveries(baseUrl, company.token, created.id)).length === 1);
    assert.notEqual((await send(company.server, company.token, 'GET', deliveriesPath, undefined)).headers.get('etag'), empty, 'a logged attempt changes the deliveries\' ETag');
  });

  it('stores the secret sealed, not as written', async () => {
    const created = await createEndpoint(company.server.baseUrl, company.token, { url: 'http://127.0.0.1:9/sealed' });
    const row = await company.server.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(created.secret.slice('whsec_'.length)), 'no column holds the secret');
    assert.match(row.secret_sealed, /^v2\.[\w-]{8}\./, 'sealed, naming the key that sealed it');
  });

  it('rotates the secret: a new one, shown once, the old one signing for 24 hours more', async () => {
    const { baseUrl } = company.server;
    const created = await createEndpoint(baseUrl, company.token, { url: 'http://127.0.0.1:9/rotate' });
    const rotated = await postJson<{ secret: string; previousSecretExpiresAt: string }>(`${baseUrl}${WEBHOOKS}/${created.id}/rotate-secret`, company.token, {});
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.secret, SECRET);
    assert.notEqual(rotated.body.secret, created.secret);
    const until = Date.parse(rotated.body.previousSecretExpiresAt);
    assert.ok(Math.abs(until - (Date.now() + 86_400_000)) < 60_000, rotated.body.previousSecretExpiresAt);
  });

  it('refuses an unknown body property on the writes that take no fields, which work with no body or {}', async () => {
    const { baseUrl } = company.server;
    const created = await createEndpoint(baseUrl, company.token, { url: 'http://127.0.0.1:9/bodiless' });
    for (const path of [`${WEBHOOKS}/${created.id}/rotate-secret`, `${WEBHOOKS}/${created.id}/test`, `${WEBHOOKS}/${created.id}/deliveries/whd_any/retry`]) {
      const refused = await postJson<ProblemBody>(`${baseUrl}${path}`, company.token, { foo: 1 });
      assert.equal(refused.status, 400, `${path}: ${refused.text}`);
      assert.equal(refused.body.code, 'validation_failed', path);
      assert.deepEqual(refused.body.errors, [{ path: '/foo', message: 'unknown property "foo"' }], path);
    }
    const bare = await send(company.server, company.token, 'POST', `${WEBHOOKS}/${created.id}/rotate-secret`, undefined);
    assert.equal(bare.status, 200, await bare.clone().text());
    assert.match(((await bare.json()) as { secret: string }).secret, SECRET);
    assert.equal((await postJson(`${baseUrl}${WEBHOOKS}/${created.id}/rotate-secret`, company.token, {})).status, 200);
    assert.equal((await send(company.server, company.token, 'POST', `${WEBHOOKS}/${created.id}/test`, undefined)).status, 202);
  });

  it('deletes an endpoint: 204, then 404', async () => {
    const { baseUrl } = company.server;
    const created = await createEndpoint(baseUrl, company.token, { url: 'http://127.0.0.1:9/gone' });
    const deleted = await company.server.fetch(`${baseUrl}${WEBHOOKS}/${created.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${company.token}` } });
    assert.equal(deleted.status, 204);
    const read = await getJson<ProblemBody>(`${baseUrl}${WEBHOOKS}/${created.id}`, company.token);
    assert.equal(read.status, 404);
    assert.equal(read.body.code, 'webhook_not_found');
  });

  it('refuses bad bodies with problem+json naming the field', async () => {
    const { baseUrl } = company.server;
    const unknownType = await postJson<ProblemBody>(`${baseUrl}${WEBHOOKS}`, company.token, { url: 'http://127.0.0.1:9/x', types: ['shift.exploded'] });
    assert.equal(unknownType.status, 400);
    assert.equal(unknownType.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.ok(unknownType.body.errors?.some((error) => error.path.startsWith('/types/0')), unknownType.text);
    const notUrl = await postJson<ProblemBody>(`${baseUrl}${WEBHOOKS}`, company.token, { url: 'not a url' });
    assert.equal(notUrl.status, 400);
    assert.equal(notUrl.body.code, 'invalid_webhook_url');
    const extra = await postJson<ProblemBody>(`${baseUrl}${WEBHOOKS}`, company.token, { url: 'http://127.0.0.1:9/x', secret: 'mine' });
    assert.equal(extra.status, 400);
    const emptyPatch = await patchEndpoint(baseUrl, company.token, 'whe_nothing', {});
    assert.equal(emptyPatch.status, 400);
    const replay = await postJson<ProblemBody>(`${baseUrl}${WEBHOOKS}/whe_nothing/replay`, company.token, { from: '2026-11-25T10:00:00Z', to: '2026-11-25T09:00:00Z' });
    assert.equal(replay.status, 400);
  });

  it('keeps each company to its own endpoints: another company\'s id is 404 on every path', async () => {
    const { baseUrl } = company.server;
    const other = await signedInCompany(company.server.ctx, { name: 'Other' });
    const theirs = await createEndpoint(baseUrl, other.token, { url: 'http://127.0.0.1:9/theirs' });
    for (const [method, path, body] of endpointRoutes(theirs.id)) {
      const response = await send(company.server, company.token, method, path, body);
      assert.equal(response.status, 404, `${method} ${path}: ${await response.text()}`);
    }
    const listed = await getJson<{ data: EndpointBody[] }>(`${baseUrl}${WEBHOOKS}`, company.token);
    assert.ok(!listed.body.data.some((endpoint) => endpoint.id === theirs.id));
    const still = await getJson<EndpointBody>(`${baseUrl}${WEBHOOKS}/${theirs.id}`, other.token);
    assert.equal(still.body.enabled, true, 'untouched by the other company');
  });

  it('refuses an unknown query parameter with 400 on every webhook route, and changes nothing', async () => {
    const { baseUrl } = company.server;
    const mine = await createEndpoint(baseUrl, company.token, { url: 'http://127.0.0.1:9/strict' });
    const routes: Route[] = [['POST', WEBHOOKS, { url: 'http://127.0.0.1:9/other' }], ['GET', WEBHOOKS, undefined], ...endpointRoutes(mine.id)];
    for (const [method, path, body] of routes) {
      const response = await send(company.server, company.token, method, `${path}?foo=1`, body);
      assert.equal(response.status, 400, `${method} ${path}: ${await response.text()}`);
    }
    const still = await getJson<EndpointBody>(`${baseUrl}${WEBHOOKS}/${mine.id}`, company.token);
    assert.deepEqual([still.status, still.body.enabled], [200, true]);
  });

  it('needs a token', async () => {
    const response = await company.server.fetch(`${company.server.baseUrl}${WEBHOOKS}`);
    assert.equal(response.status, 401);
  });
});

describe('webhook destinations without WEBHOOK_ALLOW_INSECURE', () => {
  const company = useCompanyServer({ inProcess: true });

  async function refusal(url: string): Promise<ProblemBody & { status: number }> {
    const response = await postJson<ProblemBody>(`${company.server.baseUrl}${WEBHOOKS}`, company.token, { url });
    assert.equal(response.status, 400, `${url}: ${response.text}`);
    return { ...response.body, status: response.status };
  }

  it('refuses plain http', async () => {
    assert.equal((await refusal('http://example.com/hooks')).code, 'invalid_webhook_url');
  });

  it('refuses a host name that resolves to a loopback address', async () => {
    const problem = await refusal('https://localhost/hooks');
    assert.equal(problem.code, 'webhook_destination_refused');
    assert.match(problem.detail, /localhost does not resolve to a public address/);
    // The address it resolved to is the service's own network: never told.
    assert.doesNotMatch(JSON.stringify(problem), /127\.0\.0\.1|::1/);
  });

  it('refuses loopback, private, link-local and other non-public addresses', async () => {
    for (const host of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.10', '169.254.169.254', '100.64.0.1', '0.0.0.0', '[::1]', '[fd00::1]', '[fe80::1]', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[::a9fe:a9fe]', '224.0.0.1']) {
      assert.equal((await refusal(`https://${host}/hooks`)).code, 'webhook_destination_refused', host);
    }
  });

  it('refuses a name that does not resolve in the words of one that resolves to a loopback address, and credentials in the URL', async () => {
    // Two answers would tell any token holder which internal names exist.
    const unknown = await refusal('https://no-such-host.invalid/hooks');
    const loopback = await refusal('https://localhost/hooks');
    assert.equal(unknown.code, 'webhook_destination_refused');
    assert.equal(unknown.detail.replace('no-such-host.invalid', '<host>'), loopback.detail.replace('localhost', '<host>'));
    assert.equal((await refusal('https://user:pass@93.184.216.34/hooks')).code, 'invalid_webhook_url');
  });

  it('accepts an https URL on a public address, and checks a changed URL again', async () => {
    const created = await createEndpoint(company.server.baseUrl, company.token, { url: 'https://93.184.216.34/hooks' });
    assert.equal(created.url, 'https://93.184.216.34/hooks');
    const changed = await patchEndpoint(company.server.baseUrl, company.token, created.id, { url: 'https://127.0.0.1/hooks' });
    assert.equal(changed.status, 400);
    assert.equal((changed.body as unknown as ProblemBody).code, 'webhook_destination_refused');
  });
});

describe('the OpenAPI document', () => {
  const company = useCompanyServer({ inProcess: true });

  it('lists every message type in its webhooks section, and the endpoints API under the webhooks tag', async () => {
    const document = (await (await company.server.fetch(`${company.server.baseUrl}/openapi.json`)).json()) as { webhooks: Record<string, unknown>; paths: Record<string, Record<string, { tags?: string[] }>> };
    const expected = [
      ...['user', 'contract', 'shift', 'department', 'position', 'shift_type', 'contract_type'].flatMap((resource) => ['created', 'updated', 'deleted'].map((verb) => `${resource}.${verb}`)),
      'revenue_item.created', 'revenue_item.updated', 'wage_budget_item.created', 'wage_budget_item.updated', 'timeclock_event.created', 'webhook.test',
    ];
    assert.deepEqual(Object.keys(document.webhooks).sort(), expected.sort());
    for (const path of [WEBHOOKS, `${WEBHOOKS}/{id}`, `${WEBHOOKS}/{id}/rotate-secret`, `${WEBHOOKS}/{id}/test`, `${WEBHOOKS}/{id}/deliveries`, `${WEBHOOKS}/{id}/deliveries/{deliveryId}/retry`, `${WEBHOOKS}/{id}/replay`]) {
      assert.ok(document.paths[path], path);
      for (const operation of Object.values(document.paths[path] ?? {})) assert.deepEqual(operation.tags, ['webhooks'], path);
    }
  });
});
