// Single sign-on across instances (CONTRACT §8): two servers on one database behind one public
// address, as a load balancer runs them. The pending authorization lives in the database, so a flow
// started on one instance completes on the other (which has never discovered the provider itself),
// and used once there, it cannot be replayed on the first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { migratedDatabase, type FreshDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { codeExchange, type TokenBody } from '../support/login.ts';
import { configurationWith, postToken } from '../iam/helpers.ts';
import { startIdentityProvider, type IdentityProvider } from './identity-provider.ts';
import { CookieJar, clientRequest, locationOf, request, signInAtProvider, submitEmail } from './flow.ts';
import { ssoTenant } from './fixtures.ts';
import { BROWSER_COOKIE } from '../../src/sso/runtime.ts';

let database: FreshDatabase;
let first: TestServer;
let second: TestServer;
let idp: IdentityProvider;
before(async () => {
  database = await migratedDatabase();
  first = await startTestServer({ DATABASE_URL: database.url, SSO_ALLOW_INSECURE: '1' });
  // The same public addresses: the second instance answers for the first's BASE_URL and AUTH_URL.
  second = await startTestServer({ DATABASE_URL: database.url, SSO_ALLOW_INSECURE: '1', BASE_URL: first.config.baseUrl, AUTH_URL: first.config.authUrl });
  idp = await startIdentityProvider(`${first.config.authUrl}/oauth/sso/callback`);
});
after(async () => {
  await Promise.all([first.close(), second.close(), idp.close()]);
  await database.drop();
});

/** The same request path aimed at the second instance's own socket, as the load balancer would. */
function onSecond(url: URL): URL {
  const { port } = second.app.server.address() as AddressInfo;
  return new URL(`${url.pathname}${url.search}`, `http://127.0.0.1:${port}`);
}

test('a flow started on one instance completes on another, once', async () => {
  const sso = await ssoTenant(first, idp);
  const jar = new CookieJar();
  const authorization = await clientRequest(first.config.authUrl, sso.tenant);
  const { response } = await submitEmail(jar, authorization.url, sso.user.email);
  assert.equal(response.status, 302);
  const callbackUrl = await signInAtProvider(jar, locationOf(response, first.config.authUrl), sso.user.sub, `${first.config.authUrl}/oauth/sso/callback`);

  // One browser, one host: the flow cookie set by the first instance reaches the second.
  const secondUrl = onSecond(callbackUrl);
  jar.set(secondUrl, BROWSER_COOKIE, jar.get(callbackUrl, BROWSER_COOKIE) ?? '');
  const completed = await request(jar, secondUrl);
  assert.equal(completed.status, 302, await completed.clone().text());
  const redirect = locationOf(completed, first.config.authUrl);
  assert.equal(redirect.searchParams.get('state'), authorization.state);

  const replayed = await request(jar, callbackUrl);
  assert.equal(replayed.status, 400, 'used on the second instance, refused on the first');
  assert.match(await replayed.text(), /already been used/);

  const exchanged = await postToken(first, codeExchange(sso.tenant, redirect.searchParams.get('code') ?? '', { code_verifier: authorization.verifier }));
  assert.equal(exchanged.status, 200);
  const tokens = (await exchanged.json()) as TokenBody;
  assert.deepEqual(decodeJwt(tokens.id_token).amr, ['fed']);
  assert.equal((await configurationWith(first, tokens.id_token)).status, 200);
});
