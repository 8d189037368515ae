// The SSO callback on the app's clock (src/sso/callback.ts): the pending sign-in, the link and the
// code are dated by the clock the token endpoint redeems by, so a test moves time through an SSO
// login as through a secret one. The clock starts an hour behind the system's: a date taken from
// the system clock instead shows (the provider and openid-client keep real time, as they must).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { ManualClock } from '../../src/platform/clock.ts';
import { PENDING_TTL_MS } from '../../src/sso/pending.ts';
import type { TestServer } from '../support/server.ts';
import { codeExchange } from '../support/login.ts';
import { postToken } from '../iam/helpers.ts';
import { CookieJar, clientRequest, locationOf, request, signInAtProvider, ssoLogin, submitEmail } from './flow.ts';
import { ssoTenant, startSsoServer, type SsoServer } from './fixtures.ts';
import type { IdentityProvider } from './identity-provider.ts';

const clock = new ManualClock(Date.now() - 60 * 60 * 1000);
let sso: SsoServer;
let server: TestServer;
let idp: IdentityProvider;
before(async () => {
  sso = await startSsoServer({ clock, inProcess: true });
  ({ server, idp } = sso);
});
after(() => sso.close());

test('an SSO login\'s code and auth_time follow the app\'s clock: the code expires AUTH_CODE_TTL after it by that clock', async () => {
  const { tenant, user } = await ssoTenant(server, idp);
  const first = await ssoLogin(new CookieJar(), server.config.authUrl, tenant, user.email, user.sub);
  const signedInAt = clock.now();
  const exchange = (login: typeof first) => postToken(server, codeExchange(tenant, locationOf(login.response, server.config.authUrl).searchParams.get('code') ?? '', { code_verifier: login.request.verifier }));
  const tokens = await exchange(first);
  assert.equal(tokens.status, 200, await tokens.clone().text());
  assert.equal(decodeJwt(((await tokens.json()) as { id_token: string }).id_token).auth_time, Math.floor(signedInAt / 1000));

  const second = await ssoLogin(new CookieJar(), server.config.authUrl, tenant, user.email, user.sub);
  clock.advance(server.config.authCodeTtl * 1000);
  const late = await exchange(second);
  assert.equal(late.status, 400);
  assert.deepEqual(await late.json(), { error: 'invalid_grant', error_description: 'The authorization code has expired.' });
});

test('a pending sign-in expires by the app\'s clock', async () => {
  const { tenant, user } = await ssoTenant(server, idp);
  const jar = new CookieJar();
  const { response } = await submitEmail(jar, (await clientRequest(server.config.authUrl, tenant)).url, user.email);
  assert.equal(response.status, 302);
  const callbackUrl = await signInAtProvider(jar, locationOf(response, server.config.authUrl), user.sub, `${server.config.authUrl}/oauth/sso/callback`);
  clock.advance(PENDING_TTL_MS);
  const answer = await request(jar, callbackUrl);
  assert.equal(answer.status, 400);
  assert.match(await answer.text(), /took too long and has expired/);
});
