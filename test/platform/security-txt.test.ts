// GET /.well-known/security.txt (RFC 9116): the operator's vulnerability contacts and policy, with an
// Expires less than a year ahead and the file's canonical address; absent (404) while no contact is
// configured, and a contact that is not a mailto:, tel: or https:// URI stops start-up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, useTestServer } from '../support/server.ts';
import { loadConfig } from '../../src/platform/config.ts';

const server = useTestServer({ SECURITY_CONTACT: 'mailto:security@operator.example, https://operator.example/report', SECURITY_POLICY: 'https://operator.example/disclosure' }, { inProcess: true });

function fields(text: string): Array<[string, string]> {
  return text.trimEnd().split('\n').map((line) => {
    const at = line.indexOf(': ');
    return [line.slice(0, at), line.slice(at + 2)];
  });
}

test('security.txt names every configured contact, the policy, an Expires within a year and its canonical address', async () => {
  const response = await server.fetch(`${server.baseUrl}/.well-known/security.txt`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8');
  const lines = fields(await response.text());
  assert.deepEqual(lines.filter(([name]) => name === 'Contact').map(([, value]) => value), ['mailto:security@operator.example', 'https://operator.example/report']);
  assert.deepEqual(lines.filter(([name]) => name !== 'Contact' && name !== 'Expires'), [
    ['Policy', 'https://operator.example/disclosure'],
    ['Preferred-Languages', 'en'],
    ['Canonical', `${server.baseUrl}/.well-known/security.txt`],
  ]);
  const expires = Date.parse(lines.find(([name]) => name === 'Expires')?.[1] ?? '');
  const days = (expires - Date.now()) / 86_400_000;
  assert.ok(days > 179 && days <= 180, `Expires ${days.toFixed(1)} days ahead`);
});

test('without SECURITY_CONTACT there is no security.txt: 404, never an invented mailbox', async () => {
  const bare = await startTestServer({}, { inProcess: true });
  try {
    const response = await bare.fetch(`${bare.baseUrl}/.well-known/security.txt`);
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  } finally {
    await bare.close();
  }
});

test('a contact that is not a mailto:, tel: or https:// URI, or an http policy, stops start-up', () => {
  assert.throws(() => loadConfig({ SECURITY_CONTACT: 'security@operator.example' }), /SECURITY_CONTACT must be mailto:, tel: or https:\/\/ URIs/);
  assert.throws(() => loadConfig({ SECURITY_CONTACT: 'mailto:a@b.example, http://operator.example' }), /got "http:\/\/operator.example"/);
  assert.throws(() => loadConfig({ SECURITY_CONTACT: 'mailto:a@b.example', SECURITY_POLICY: 'http://operator.example/p' }), /SECURITY_POLICY must be an https:\/\/ URL/);
});
