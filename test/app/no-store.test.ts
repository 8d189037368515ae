// No cache keeps an answer that carries a secret (CONTRACT §2's Cache-Control: no-store for tokens,
// extended to secrets): every answer to a request other than GET or HEAD is sent with no-store unless
// its route says otherwise, and the OpenAPI document declares the header on those answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useCompanyServer } from '../support/company.ts';
import { fetchAny } from '../support/in-process.ts';

const ADMIN_TOKEN = 'operator-token-for-tests-0123456789';
const company = useCompanyServer({ env: { ADMIN_TOKEN, WEBHOOK_ALLOW_INSECURE: '1' } });

async function call(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown>; cacheControl: string | null }> {
  const response = await fetchAny(`${company.server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, cacheControl: response.headers.get('cache-control') };
}

test('answers that carry a webhook secret, an API secret or an invitation link are sent with Cache-Control: no-store', async () => {
  const { tenant, token } = company;
  const webhook = await call('POST', '/api/v1/company/webhooks', token, { url: 'http://127.0.0.1:9/hooks' });
  const rotatedWebhook = await call('POST', `/api/v1/company/webhooks/${String(webhook.body.id)}/rotate-secret`, token, {});
  const user = await call('POST', '/api/v1/admin/api-users', ADMIN_TOKEN, { clientId: tenant.clientId, email: 'second@example.com' });
  // Another client is rotated: an immediate rotation revokes the grants of this one's token.
  const client = await call('POST', '/api/v1/admin/api-clients', ADMIN_TOKEN, { companyId: tenant.companyId, name: 'Second', redirectUris: ['https://app.example.com/cb'] });
  const rotatedClient = await call('POST', `/api/v1/admin/api-clients/${String(client.body.clientId)}/rotate-secret`, ADMIN_TOKEN);
  const invitation = await call('POST', '/api/v1/admin/console-invitations', ADMIN_TOKEN, { organisationId: tenant.organisationId, email: 'admin@example.com' });
  const answers = [webhook, rotatedWebhook, user, client, rotatedClient, invitation];
  assert.deepEqual(answers.map((a) => [a.status, a.cacheControl]), [[201, 'no-store'], [200, 'no-store'], [201, 'no-store'], [201, 'no-store'], [200, 'no-store'], [201, 'no-store']]);
  assert.ok(webhook.body.secret && rotatedWebhook.body.secret && user.body.secret && client.body.clientSecret && rotatedClient.body.clientSecret && invitation.body.inviteUrl, 'each carried its secret');
});

test('refusals of such requests are no-store too; reads keep the caching their route chose', async () => {
  const refused = await call('POST', '/api/v1/admin/api-users', ADMIN_TOKEN, { clientId: 'cli_nope', email: 'x@example.com' });
  assert.deepEqual([refused.status, refused.cacheControl], [404, 'no-store']);
  const list = await call('GET', '/api/v1/company/webhooks', company.token);
  assert.deepEqual([list.status, list.cacheControl], [200, 'private, no-cache']);
  const metadata = await call('GET', '/api/v1/iam/.well-known/openid-configuration', '');
  assert.deepEqual([metadata.status, metadata.cacheControl], [200, 'public, max-age=300']);
});

test('the OpenAPI document declares Cache-Control: no-store on the successful answers of every operation but reads', async () => {
  type Operation = { responses: Record<string, { headers?: Record<string, unknown>; $ref?: string }> };
  const document = (await (await fetchAny(`${company.server.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>>; components: { headers: Record<string, { schema: unknown }> } };
  const declared = (path: string, method: string, status: string) => document.paths[path]![method]!.responses[status]!.headers?.['Cache-Control'];
  const noStore = { $ref: '#/components/headers/NoStore' };
  assert.deepEqual(document.components.headers.NoStore!.schema, { type: 'string', const: 'no-store' });
  for (const [path, status] of [
    ['/api/v1/company/webhooks', '201'],
    ['/api/v1/company/webhooks/{id}/rotate-secret', '200'],
    ['/api/v1/admin/api-users', '201'],
    ['/api/v1/admin/api-clients', '201'],
    ['/api/v1/admin/api-clients/{clientId}/rotate-secret', '200'],
    ['/api/v1/admin/console-invitations', '201'],
  ] as const) {
    assert.deepEqual(declared(path, 'post', status), noStore, path);
  }
  assert.deepEqual(declared('/api/v1/company/webhooks', 'get', '200'), { $ref: '#/components/headers/PrivateNoCache' }, 'a read is private, no-cache');
  assert.deepEqual(declared('/api/v1/company/changes', 'get', '200'), { description: '`no-store`: a page is read once and followed by its cursor; it may hold data since deleted.', schema: { type: 'string', const: 'no-store' } });
  assert.deepEqual(declared('/api/v1/company/webhooks/{id}', 'get', '404'), noStore, 'a refusal is no-store');
});

test('every read of the company API says how it may be kept: private, no-cache; the change log no-store; a refusal no-store', async () => {
  const { token } = company;
  const webhook = await call('POST', '/api/v1/company/webhooks', token, { url: 'http://127.0.0.1:9/read' });
  const reads = [
    ['/api/v1/company/configuration', 'private, no-cache'],
    ['/api/v1/company/users', 'private, no-cache'],
    ['/api/v1/company/webhooks', 'private, no-cache'],
    [`/api/v1/company/webhooks/${String(webhook.body.id)}`, 'private, no-cache'],
    ['/api/v1/company/changes', 'no-store'],
    ['/api/v1/company/changes?wait=1', 'no-store'],
    ['/api/v1/company/changes/head', 'no-store'],
  ] as const;
  for (const [path, caching] of reads) {
    const answer = await call('GET', path, token);
    assert.deepEqual([answer.status, answer.cacheControl], [200, caching], path);
  }
  for (const path of ['/api/v1/company/webhooks/whe_nope', '/api/v1/company/changes?cursor=tampered', '/api/v1/company/users?limit=0']) {
    const refused = await call('GET', path, token);
    assert.ok(refused.status >= 400, path);
    assert.equal(refused.cacheControl, 'no-store', path);
  }
  assert.equal((await call('GET', '/api/v1/company/configuration', 'not-a-token')).cacheControl, 'no-store', 'a 401 too');
});
