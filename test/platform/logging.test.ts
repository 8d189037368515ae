// Logs: JSON lines, each request's lines carry its reqId (the X-Request-Id it answered with), and no
// secret reaches them — client and user secrets, tokens, or the authorization code of a callback URL.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { startTestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { codeExchange, type TokenBody } from '../support/login.ts';
import { loginForCode, postToken } from '../iam/helpers.ts';

const lines: string[] = [];
const stream = new PassThrough();
stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
const server = await startTestServer({ LOG_LEVEL: 'info' }, { logStream: stream, inProcess: true });
after(() => server.close());

test('every request line names its request id, and no code, secret or token is ever logged', async () => {
  const tenant = await provisionTenant(server.ctx);
  const location = await loginForCode(server, tenant);
  const code = location.searchParams.get('code') ?? '';
  const callback = await server.fetch(`${server.baseUrl}/demo/callback?code=${code}&state=st-123`);
  assert.equal(callback.status, 200);
  const exchanged = await postToken(server, codeExchange(tenant, code));
  assert.equal(exchanged.status, 200);
  const tokens = (await exchanged.json()) as TokenBody;
  const configuration = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: { authorization: `Bearer ${tokens.id_token}` } });
  assert.equal(configuration.status, 200);
  await new Promise((resolve) => setImmediate(resolve));

  const entries = lines.map((line) => JSON.parse(line) as { reqId?: string; req?: { url: string }; res?: unknown; msg: string });
  const requestLines = entries.filter((entry) => entry.req || entry.res);
  assert.ok(requestLines.length >= 10, `expected the requests to be logged, got ${requestLines.length} lines`);
  for (const entry of requestLines) assert.match(entry.reqId ?? '', /^[A-Za-z0-9._-]{8,128}$/, JSON.stringify(entry));
  const requestId = configuration.headers.get('x-request-id') ?? '';
  assert.ok(entries.some((entry) => entry.reqId === requestId && entry.req?.url === '/api/v1/company/configuration'), 'the answered X-Request-Id is the logged reqId');
  assert.ok(entries.some((entry) => entry.req?.url === '/demo/callback?code=[redacted]&state=[redacted]'), 'the callback is logged without its code');

  const everything = lines.join('\n');
  for (const [name, secret] of Object.entries({ code, clientSecret: tenant.clientSecret, userSecret: tenant.secret, idToken: tokens.id_token, refreshToken: tokens.refresh_token ?? '' })) {
    assert.ok(secret.length > 10, name);
    assert.ok(!everything.includes(secret), `the ${name} appears in the logs`);
  }
});

test('a console invitation\'s token, a credential until accepted, is not logged', async () => {
  const token = 'inv-token-that-must-not-be-logged';
  await server.fetch(`${server.baseUrl}/console/invitations/${token}`);
  await server.fetch(`${server.baseUrl}/console/invitations/${token}/code`, { method: 'POST' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(!lines.some((line) => line.includes(token)), 'the token appears in no log line');
  const urls = lines.map((line) => (JSON.parse(line) as { req?: { url: string } }).req?.url);
  assert.ok(urls.includes('/console/invitations/[redacted]'), 'the request is logged, without its token');
  assert.ok(urls.includes('/console/invitations/[redacted]/code'));
});
