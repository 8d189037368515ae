// Single sign-on when things go wrong (CONTRACT §8): every failure is a clear HTML page and an
// `sso_login_failed` audit entry with its reason, nothing is created, and forged, expired or replayed
// answers never sign anyone in. Driven over HTTP against a real OpenID provider (oidc-provider).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestServer } from '../support/server.ts';
import { assertRefusedWithin } from '../support/http.ts';
import { codeExchange, hiddenInputs, type TokenBody } from '../support/login.ts';
import { postToken, renewAtIdToken } from '../iam/helpers.ts';
import { createApiUser, setGrantEnabled } from '../../src/iam/provisioning.ts';
import { addSsoProvider, removeSsoProvider } from '../../src/sso/providers.ts';
import { loadSecretBox } from '../../src/sso/secrets-key.ts';
import { matchApiUser } from '../../src/sso/matching.ts';
import { newSigningKey, signIdToken, startIdentityProvider, type IdentityProvider } from './identity-provider.ts';
import { CookieJar, clientRequest, locationOf, request, signInAtProvider, ssoLogin, submitEmail } from './flow.ts';
import { ssoTenant, startSsoServer, type SsoServer, type SsoTenant } from './fixtures.ts';

let sso: SsoServer;
let server: TestServer;
let idp: IdentityProvider;
before(async () => {
  sso = await startSsoServer();
  ({ server, idp } = sso);
});
after(() => sso.close());

async function failedPage(response: Response, status: number, text: RegExp): Promise<string> {
  const html = await response.text();
  assert.equal(response.status, status, html);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.match(html, text);
  assert.doesNotMatch(html, /at .*\.ts:\d+|stack|SELECT /i, 'no stack or SQL');
  return html;
}

async function failures(clientId: string | null): Promise<{ detail: string | null; user_id: string | null }[]> {
  let query = server.ctx.db.selectFrom('audit_log').select(['detail', 'user_id']).where('event', '=', 'sso_login_failed').orderBy('at');
  query = clientId === null ? query.where('client_id', 'is', null) : query.where('client_id', '=', clientId);
  return (await query.execute()).map((row) => ({ ...row }));
}

/** Up to the provider's redirect back to the service (the callback URL), without following it. */
async function toCallback(sso: SsoTenant, jar = new CookieJar()): Promise<{ jar: CookieJar; callbackUrl: URL }> {
  const authorization = await clientRequest(server.config.authUrl, sso.tenant);
  const { response } = await submitEmail(jar, authorization.url, sso.user.email);
  assert.equal(response.status, 302);
  return { jar, callbackUrl: await signInAtProvider(jar, locationOf(response, server.config.authUrl), sso.user.sub, `${server.config.authUrl}/oauth/sso/callback`) };
}

test('no API User matches the provider\'s account: an error page, nothing created', async () => {
  const sso = await ssoTenant(server, idp);
  idp.people.set('stranger', { sub: 'stranger', email: `stranger@${sso.domain}`, email_verified: true });
  const users = await server.ctx.db.selectFrom('api_users').select('id').execute();
  const { response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, `stranger@${sso.domain}`, 'stranger');
  await failedPage(response, 403, /no API User of this application matches that account/);
  assert.equal((await server.ctx.db.selectFrom('api_users').select('id').execute()).length, users.length, 'no user created');
  assert.deepEqual(await failures(sso.tenant.clientId), [{ detail: 'no_matching_user', user_id: null }]);
});

test('an email the provider does not vouch for (email_verified false) matches nobody (the nOAuth takeover)', async () => {
  const sso = await ssoTenant(server, idp);
  idp.people.set('impostor', { sub: 'impostor', email: sso.user.email, email_verified: false });
  const { response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, sso.user.email, 'impostor');
  await failedPage(response, 403, /email_verified is not true/);
  assert.deepEqual(await failures(sso.tenant.clientId), [{ detail: 'email_not_verified', user_id: null }]);
  assert.equal(await server.ctx.db.selectFrom('sso_links').select('user_id').where('user_id', '=', sso.user.userId).executeTakeFirst(), undefined, 'not linked');
});

test('an email outside the provider\'s own domains matches nobody, even verified', async () => {
  const sso = await ssoTenant(server, idp);
  const outsider = await createApiUser(server.ctx.db, { clientId: sso.tenant.clientId, email: 'ana@elsewhere.example' });
  idp.people.set('outsider', { sub: 'outsider', email: outsider.email, email_verified: true });
  const { response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, sso.user.email, 'outsider');
  await failedPage(response, 403, /not in a domain of this identity provider/);
  assert.deepEqual(await failures(sso.tenant.clientId), [{ detail: 'email_outside_domains', user_id: null }]);
});

test('a client without the sso grant keeps the email-and-secret form; an SSO email goes nowhere', async () => {
  const sso = await ssoTenant(server, idp, { grants: [] });
  const jar = new CookieJar();
  const authorization = await clientRequest(server.config.authUrl, sso.tenant);
  const page = await request(jar, authorization.url);
  const html = await page.text();
  assert.match(html, /name="secret"/, 'the classic form');
  const posted = await request(jar, new URL('/oauth/authorize', server.config.authUrl), { form: { ...hiddenInputs(html), email: sso.user.email } });
  assert.equal(posted.status, 401, 'no redirect to the provider: the (empty) secret is checked');
  const signedIn = await request(jar, new URL('/oauth/authorize', server.config.authUrl), { form: { ...hiddenInputs(html), email: sso.user.email, secret: sso.user.secret } });
  assert.equal(signedIn.status, 302);
  assert.equal(locationOf(signedIn, server.config.authUrl).origin, 'https://app.example.com');
  assert.equal(await server.ctx.db.selectFrom('sso_pending').select('state_hash').where('client_id', '=', sso.tenant.clientId).executeTakeFirst(), undefined, 'no flow started');
});

test('a wrong state, a replayed callback and a callback in another browser are refused', async () => {
  const sso = await ssoTenant(server, idp);
  const unknown = await request(new CookieJar(), `${server.config.authUrl}/oauth/sso/callback?code=x&state=${randomUUID()}`);
  await failedPage(unknown, 400, /does not belong to a sign-in started here/);
  await failedPage(await request(new CookieJar(), `${server.config.authUrl}/oauth/sso/callback?code=x`), 400, /carries no state/);

  const { jar, callbackUrl } = await toCallback(sso);
  const tampered = new URL(callbackUrl);
  tampered.searchParams.set('state', `${callbackUrl.searchParams.get('state') ?? ''}x`);
  await failedPage(await request(jar, tampered), 400, /does not belong to a sign-in started here/);
  const first = await request(jar, callbackUrl);
  assert.equal(first.status, 302, 'the untouched answer still works once');
  await failedPage(await request(jar, callbackUrl), 400, /already been used/);

  const elsewhere = await toCallback(sso);
  await failedPage(await request(new CookieJar(), elsewhere.callbackUrl), 400, /started in another browser/);
  await failedPage(await request(elsewhere.jar, elsewhere.callbackUrl), 400, /already been used/, );
  // As sets with repeats: two failures in the same millisecond have no order (the pages above tell which step gave which).
  assert.deepEqual((await failures(sso.tenant.clientId)).map((f) => f.detail).sort(), ['other_browser', 'replayed_callback', 'replayed_callback']);
  assert.deepEqual((await failures(null)).map((f) => f.detail).slice(-3).sort(), ['missing_state', 'unknown_state', 'unknown_state']);
});

test('forged ID tokens are refused: another issuer, another key (known kid or not), expired', async () => {
  const sso = await ssoTenant(server, idp);
  const stranger = await newSigningKey('stranger-key');
  const impostorKey = await newSigningKey(idp.key.kid);
  const now = Math.floor(Date.now() / 1000);
  const forgeries: [string, (claims: Record<string, unknown>) => Promise<string>, RegExp][] = [
    ['another issuer', (claims) => signIdToken(idp.key, { ...claims, iss: 'http://127.0.0.1:1/other-idp' }), /iss/],
    ['a key the provider does not publish', (claims) => signIdToken(stranger, claims), /key/],
    ['another key under the provider\'s kid', (claims) => signIdToken(impostorKey, claims), /signature/],
    ['an expired token', (claims) => signIdToken(idp.key, { ...claims, iat: now - 7200, exp: now - 3600 }), /exp/],
  ];
  try {
    for (const [what, forge, reason] of forgeries) {
      idp.forge = forge;
      const { response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, sso.user.email, sso.user.sub);
      const html = await response.text();
      assert.equal(response.status, 400, `${what}: ${html}`);
      assert.match(html, /did not validate/, what);
      assert.match(html, reason, what);
    }
  } finally {
    idp.forge = undefined;
  }
  assert.deepEqual((await failures(sso.tenant.clientId)).map((f) => f.detail), ['invalid_id_token', 'invalid_id_token', 'invalid_id_token', 'invalid_id_token']);
  assert.equal(await server.ctx.db.selectFrom('authorization_codes').select('code_hash').where('client_id', '=', sso.tenant.clientId).executeTakeFirst(), undefined, 'no code issued');
  const { response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, sso.user.email, sso.user.sub);
  assert.equal(response.status, 302, 'the genuine token still signs in');
});

test('the provider down: a clear page when the flow starts, and when the code is exchanged', async () => {
  const down = await startIdentityProvider(`${server.config.authUrl}/oauth/sso/callback`);
  const early = await ssoTenant(server, down);
  const late = await ssoTenant(server, down);
  const { jar, callbackUrl } = await toCallback(late);
  await down.close();

  const authorization = await clientRequest(server.config.authUrl, early.tenant);
  const { response } = await submitEmail(new CookieJar(), authorization.url, early.user.email);
  const startPage = await failedPage(response, 502, /could not be reached/);
  assert.deepEqual((await failures(early.tenant.clientId)).map((f) => f.detail), ['provider_unreachable']);

  const callbackPage = await failedPage(await request(jar, callbackUrl), 502, /could not be reached/);
  assert.deepEqual((await failures(late.tenant.clientId)).map((f) => f.detail), ['provider_unreachable']);
  for (const html of [startPage, callbackPage]) assert.doesNotMatch(html, /ECONN|fetch failed|connect /, 'no network detail for the person signing in');
});

test('enforceSso: no secret form is offered, and a posted secret is refused', async () => {
  const sso = await ssoTenant(server, idp, { enforce: true });
  const jar = new CookieJar();
  const authorization = await clientRequest(server.config.authUrl, sso.tenant);
  const secretUrl = new URL(authorization.url);
  secretUrl.searchParams.set('login', 'secret');
  for (const url of [authorization.url, secretUrl]) {
    const html = await (await request(jar, url)).text();
    assert.doesNotMatch(html, /name="secret"|secret instead/, 'identifier step only');
  }
  const html = await (await request(jar, authorization.url)).text();
  const refused = await request(jar, new URL('/oauth/authorize', server.config.authUrl), { form: { ...hiddenInputs(html), email: sso.user.email, secret: sso.user.secret } });
  await failedPage(refused, 403, /signs you in through its own identity provider/);
  const audit = await server.ctx.db.selectFrom('audit_log').select('detail').where('client_id', '=', sso.tenant.clientId).where('event', '=', 'login').execute();
  assert.deepEqual(audit.map((a) => a.detail), ['sso_enforced']);

  const other = await submitEmail(jar, authorization.url, 'someone@not-sso.example');
  await failedPage(other.response, 403, /no provider of your organisation serves this email/);
  const { response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, sso.user.email, sso.user.sub);
  assert.equal(response.status, 302, 'SSO itself works');
});

test('SSO failures count toward the per-address penalty; a success clears it', async () => {
  const sso = await ssoTenant(server, idp);
  idp.people.set('nobody', { sub: 'nobody', email: `nobody@${sso.domain}`, email_verified: true });
  for (let attempt = 0; attempt < 5; attempt++) {
    const { response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, `nobody@${sso.domain}`, 'nobody');
    assert.equal(response.status, 403);
    await response.body?.cancel();
  }
  const { response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, sso.user.email, sso.user.sub);
  assert.equal(response.status, 429, 'even a good sign-in waits out the penalty');
  assert.ok(Number(response.headers.get('retry-after')) >= 1);
  await errorPageWithPageHeaders(response, 429, /Too Many Requests/);
});

/** An error page that failed before the route ran (validation) or was thrown by it: it renders, and carries the page headers. */
async function errorPageWithPageHeaders(response: Response, status: number, text: RegExp): Promise<void> {
  const html = await failedPage(response, status, text);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.match(response.headers.get('content-security-policy') ?? '', /^default-src 'none'; style-src 'sha256-[^']+'; /, 'no script; the page\'s own stylesheet only');
  assert.match(html, /^<!doctype html>.*<style>body\{.*<\/style>.*<h1>/s, 'the page as before');
}

test('a callback whose state is too long to be one: the 400 error page, not stored, with the page CSP', async () => {
  const response = await request(new CookieJar(), new URL(`/oauth/sso/callback?state=${'x'.repeat(600)}`, server.config.authUrl));
  await errorPageWithPageHeaders(response, 400, /<h1>Bad Request<\/h1><p class="error" role="alert">[^<]*state/);
});

test('removing a provider revokes the grants made through it', async () => {
  const sso = await ssoTenant(server, idp);
  const { request: authorization, response } = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, sso.user.email, sso.user.sub);
  const code = locationOf(response, server.config.authUrl).searchParams.get('code') ?? '';
  const exchanged = await postToken(server, codeExchange(sso.tenant, code, { code_verifier: authorization.verifier }));
  const tokens = (await exchanged.json()) as TokenBody;
  const secretLogin = await postToken(server, { grant_type: 'client_credentials', client_id: sso.tenant.clientId, client_secret: sso.tenant.clientSecret });
  await secretLogin.body?.cancel();

  assert.deepEqual(await removeSsoProvider(server.ctx.db, sso.providerId), { providerId: sso.providerId, removed: true, revokedGrants: 1 });
  await assertRefusedWithin(server.baseUrl, tokens.id_token, 5000);
  assert.equal((await renewAtIdToken(server, tokens.refresh_token ?? '')).status, 401);
  assert.equal(await server.ctx.db.selectFrom('sso_links').select('user_id').where('user_id', '=', sso.user.userId).executeTakeFirst(), undefined);
  const again = await submitEmail(new CookieJar(), (await clientRequest(server.config.authUrl, sso.tenant)).url, sso.user.email);
  assert.equal(again.response.status, 200, 'the domain now goes to the secret form');
});

/**
 * Follows the callback while the provider's token endpoint is held, runs `meanwhile` (the callback
 * is then waiting for the provider), lets the provider answer, and returns the service's answer.
 */
async function callbackHeldAtTokenEndpoint(sso: SsoTenant, meanwhile: () => Promise<void>): Promise<Response> {
  const { jar, callbackUrl } = await toCallback(sso);
  const reached = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  idp.hold = async () => {
    reached.resolve();
    await release.promise;
  };
  try {
    const answer = request(jar, callbackUrl);
    await reached.promise;
    await meanwhile();
    release.resolve();
    return await answer;
  } finally {
    idp.hold = undefined;
    release.resolve();
  }
}

/** Nothing was issued to the client: no code, no grant, no link of the user. */
async function nothingIssued(sso: SsoTenant): Promise<void> {
  const { db } = server.ctx;
  assert.equal(await db.selectFrom('authorization_codes').select('code_hash').where('client_id', '=', sso.tenant.clientId).where('user_id', '=', sso.user.userId).executeTakeFirst(), undefined, 'no code');
  assert.equal(await db.selectFrom('grants').select('id').where('client_id', '=', sso.tenant.clientId).where('user_id', '=', sso.user.userId).executeTakeFirst(), undefined, 'no grant');
  assert.equal(await db.selectFrom('sso_links').select('user_id').where('user_id', '=', sso.user.userId).executeTakeFirst(), undefined, 'no link');
}

test('a provider removed while the callback waits for its token endpoint: the provider_removed page, nothing issued', async () => {
  const sso = await ssoTenant(server, idp);
  const response = await callbackHeldAtTokenEndpoint(sso, async () => void (await removeSsoProvider(server.ctx.db, sso.providerId)));
  await failedPage(response, 400, /identity provider of this sign-in has been removed/);
  assert.deepEqual(await failures(sso.tenant.clientId), [{ detail: 'provider_removed', user_id: sso.user.userId }]);
  await nothingIssued(sso);
});

test('a provider removed and added again with the same issuer during the code exchange: the old flow issues nothing; a new one signs in', async () => {
  const sso = await ssoTenant(server, idp);
  let readdedId = '';
  const response = await callbackHeldAtTokenEndpoint(sso, async () => {
    await removeSsoProvider(server.ctx.db, sso.providerId);
    const box = await loadSecretBox(server.ctx.db, server.config, () => {});
    ({ providerId: readdedId } = await addSsoProvider(server.ctx.db, { box, allowInsecure: true }, { organisationId: sso.tenant.organisationId, issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains: [sso.domain] }));
  });
  await failedPage(response, 400, /identity provider of this sign-in has been removed/);
  assert.deepEqual(await failures(sso.tenant.clientId), [{ detail: 'provider_removed', user_id: sso.user.userId }]);
  await nothingIssued(sso);

  const again = await ssoLogin(new CookieJar(), server.config.authUrl, sso.tenant, sso.user.email, sso.user.sub);
  assert.equal(again.response.status, 302, 'a flow started through the new provider signs in');
  const link = await server.ctx.db.selectFrom('sso_links').select('provider_id').where('user_id', '=', sso.user.userId).executeTakeFirstOrThrow();
  assert.equal(link.provider_id, readdedId);
});

/** No code and no grant for the client's user (the user may have been linked: linking names a person, it grants nothing). */
async function noCodeNorGrant(sso: SsoTenant): Promise<void> {
  const { db } = server.ctx;
  assert.equal(await db.selectFrom('authorization_codes').select('code_hash').where('client_id', '=', sso.tenant.clientId).executeTakeFirst(), undefined, 'no code');
  assert.equal(await db.selectFrom('grants').select('id').where('client_id', '=', sso.tenant.clientId).executeTakeFirst(), undefined, 'no grant');
}

test('the client\'s sso grant withdrawn while the person is at the provider: the request_invalid page, nothing issued', async () => {
  const sso = await ssoTenant(server, idp);
  const { jar, callbackUrl } = await toCallback(sso);
  await setGrantEnabled(server.ctx.db, sso.tenant.clientId, 'sso', false);
  await failedPage(await request(jar, callbackUrl), 400, /single sign-on turned off for it/);
  assert.deepEqual(await failures(sso.tenant.clientId), [{ detail: 'request_invalid', user_id: null }]);
  await noCodeNorGrant(sso);
});

test('the client\'s sso grant withdrawn while the callback waits for the provider\'s token endpoint: the sign_in_withdrawn page, nothing issued', async () => {
  const sso = await ssoTenant(server, idp);
  const response = await callbackHeldAtTokenEndpoint(sso, async () => void (await setGrantEnabled(server.ctx.db, sso.tenant.clientId, 'sso', false)));
  await failedPage(response, 403, /single sign-on was turned off for the application/);
  assert.deepEqual(await failures(sso.tenant.clientId), [{ detail: 'sign_in_withdrawn', user_id: sso.user.userId }]);
  await noCodeNorGrant(sso);
});

test('a Google-hosted domain needs the token\'s hd claim to name it', async () => {
  const sso = await ssoTenant(server, idp);
  const google = { id: sso.providerId, issuer: 'https://accounts.google.com', domains: [sso.domain] };
  const identity = { subject: 'g-1', email: sso.user.email, emailVerified: true, hostedDomain: undefined };
  assert.deepEqual(await matchApiUser(server.ctx.db, sso.tenant.clientId, google, identity), { ok: false, reason: 'hosted_domain_mismatch' });
  assert.deepEqual(await matchApiUser(server.ctx.db, sso.tenant.clientId, google, { ...identity, hostedDomain: 'gmail.com' }), { ok: false, reason: 'hosted_domain_mismatch' });
  assert.deepEqual(await matchApiUser(server.ctx.db, sso.tenant.clientId, google, { ...identity, hostedDomain: sso.domain }), { ok: true, userId: sso.user.userId, linked: true });
});
