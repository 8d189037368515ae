// Why an issuer's discovery failed, by category (src/sso/discovery-failure.ts), against real servers
// on 127.0.0.1: a closed port, an HTTP error, a page that is no discovery document, a document naming
// another issuer, TLS spoken to a plain HTTP server, and a loopback address without
// SSO_ALLOW_INSECURE. The category's text never names an address, a port or an error code; the
// failure's message (the operator's) keeps them. A timeout (10 seconds) is not waited for here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { discoverIssuer, DiscoveryFailure } from '../../src/sso/relying-party.ts';
import type { DiscoveryCategory } from '../../src/sso/discovery-failure.ts';
import { freePort } from '../support/server.ts';

let server: Server;
let origin: string;
before(async () => {
  server = createServer((request, response) => {
    if (request.url === '/another/.well-known/openid-configuration') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: 'https://idp.example.com', authorization_endpoint: 'https://idp.example.com/auth' }));
    } else if (request.url === '/page/.well-known/openid-configuration') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Welcome</title>');
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  origin = `127.0.0.1:${address.port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function failure(issuer: string, allowInsecure = true): Promise<DiscoveryFailure> {
  try {
    await discoverIssuer(issuer, allowInsecure);
  } catch (error) {
    assert.ok(error instanceof DiscoveryFailure, String(error));
    return error;
  }
  throw new Error(`${issuer} was discovered`);
}

async function assertCategory(issuer: string, category: DiscoveryCategory, text: RegExp, options: { allowInsecure?: boolean; detail?: RegExp } = {}): Promise<void> {
  const found = await failure(issuer, options.allowInsecure);
  assert.equal(found.problem.category, category, found.message);
  assert.match(found.problem.text, text);
  const port = new URL(issuer).port;
  assert.doesNotMatch(found.problem.text, /127\.0\.0\.1|\bE[A-Z]{3,}\b|ERR_/, `${category}: no address or error code`);
  if (port) assert.ok(!found.problem.text.includes(port), `${category}: no port`);
  if (options.detail) assert.match(found.message, options.detail, 'the operator\'s message keeps the detail');
}

test('each failed discovery has its category, told without address, port or error code', async () => {
  const closed = await freePort();
  await assertCategory(`http://127.0.0.1:${closed}`, 'could_not_connect', /the connection to it failed/, { detail: new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${closed}`) });
  await assertCategory(`http://${origin}/missing`, 'http_status', /^answered HTTP 404 instead of its discovery document$/);
  await assertCategory(`http://${origin}/page`, 'invalid_document', /does not serve a valid OpenID discovery document/);
  await assertCategory(`http://${origin}/another`, 'issuer_mismatch', /names another issuer/);
  await assertCategory(`https://${origin}`, 'tls_certificate', /TLS certificate/);
  await assertCategory(`https://${origin}`, 'refused_destination', /not an address this service calls/, { allowInsecure: false, detail: /not a public address/ });
});
