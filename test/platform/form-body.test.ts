// Form bodies (application/x-www-form-urlencoded) are read as UTF-8 or refused: bytes that are not
// UTF-8 (a Latin-1 "é" from an old client) are 400 in the endpoint's own shape, never decoded into
// U+FFFD and so into a silently wrong secret. Raw UTF-8 text, unescaped, is read as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useCompanyServer } from '../support/company.ts';

const company = useCompanyServer({ name: 'Forms', inProcess: true });

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const latin1 = (text: string) => Buffer.from(text, 'latin1');

test('the token and revocation endpoints answer 400 invalid_request to a form whose bytes are not UTF-8', async () => {
  const { issuer } = company.server.config;
  const token = await company.server.fetch(`${issuer}/oauth/token`, { method: 'POST', headers: FORM, body: latin1(`grant_type=client_credentials&client_id=${company.tenant.clientId}&client_secret=caf\u00e9`) });
  const body = (await token.json()) as { error: string; error_description: string };
  assert.equal(token.status, 400, JSON.stringify(body));
  assert.equal(body.error, 'invalid_request');
  assert.match(body.error_description, /not valid UTF-8/);
  const revoke = await company.server.fetch(`${issuer}/oauth/revoke`, { method: 'POST', headers: FORM, body: latin1(`token=caf\u00e9&client_id=${company.tenant.clientId}`) });
  assert.equal(revoke.status, 400);
});

test('the login page answers an HTML 400 page to a form whose bytes are not UTF-8', async () => {
  const response = await company.server.fetch(`${company.server.config.authUrl}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: FORM, body: latin1('email=ren\u00e9%40example.com&secret=x') });
  const html = await response.text();
  assert.equal(response.status, 400, html);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(html, /not valid UTF-8/);
});

test('raw UTF-8 text in a form, unescaped, is read as sent', async () => {
  const revoke = await company.server.fetch(`${company.server.config.issuer}/oauth/revoke`, { method: 'POST', headers: FORM, body: Buffer.from(`token=caf\u00e9&client_id=${company.tenant.clientId}&client_secret=${encodeURIComponent(company.tenant.clientSecret)}`, 'utf8') });
  assert.equal(revoke.status, 200, await revoke.text());
});
