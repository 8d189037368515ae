// Single sign-on, the happy paths (CONTRACT §8), driven over HTTP as a browser without JavaScript:
// identifier first, the customer's real OpenID provider (oidc-provider), back to the client with a
// code whose tokens say the login was federated, an API call; the second login finds the user by sub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { startTestServer, type TestServer } from '../support/server.ts';
import { codeExchange, type TokenBody } from '../support/login.ts';
import { configurationWith, postToken, renewAtIdToken } from '../iam/helpers.ts';
import { startIdentityProvider, type IdentityProvider } from './identity-provider.ts';
import { CookieJar, clientRequest, locationOf, request, ssoLogin, submitEmail } from './flow.ts';
import { ssoTenant } from './fixtures.ts';

let server: TestServer;
let idp: IdentityProvider;
before(async () => {
  server = await startTestServer({ SSO_ALLOW_INSECURE: '1', REFRESH_TOKEN_TTL: '100' }, { inProcess: true });
  idp = await startIdentityProvider(`${server.config.authUrl}/oauth/sso/callback`);
});
after(async () => {
  await Promise.all([server.close(), idp.close()]);
});

async function exchange(tenant: { clientId: string; clientSecret: string; redirectUri: string }, redirect: URL, verifier: string): Promise<TokenBody> {
  const response = await postToken(server, codeExchange({ ...tenant } as never, redirect.searchParams.get('code') ?? '', { code_verifier: verifier }));
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as TokenBody;
}

test('an API User signs in through the organisation\'s provider and calls the API with a federated ID token', async () => {
  const { tenant, providerId, user } = await ssoTenant(server, idp);
  const jar = new CookieJar();
  const { request: authorization, response } = await ssoLogin(jar, server.config.authUrl, tenant, user.email, user.sub);
  assert.equal(response.status, 302, await response.clone().text());
  const redirect = locationOf(response, server.config.authUrl);
  assert.equal(`${redirect.origin}${redirect.pathname}`, tenant.redirectUri);
  assert.equal(redirect.searchParams.get('state'), authorization.state, 'the client\'s state comes back byte for byte');
  assert.equal(redirect.searchParams.get('iss'), server.config.issuer);

  const tokens = await exchange(tenant, redirect, authorization.verifier);
  const claims = decodeJwt(tokens.id_token);
  assert.equal(claims.sub, user.userId);
  assert.equal(claims.email, user.email);
  assert.equal(claims.nonce, authorization.nonce);
  assert.deepEqual(claims.amr, ['fed']);
  assert.equal(claims.idp, idp.issuer);
  assert.equal((await configurationWith(server, tokens.id_token)).status, 200);

  const link = await server.ctx.db.selectFrom('sso_links').selectAll().where('user_id', '=', user.userId).executeTakeFirstOrThrow();
  assert.deepEqual({ provider: link.provider_id, issuer: link.issuer, subject: link.subject, client: link.client_id }, { provider: providerId, issuer: idp.issuer, subject: user.sub, client: tenant.clientId });
  const audit = await server.ctx.db.selectFrom('audit_log').select(['event', 'outcome', 'user_id', 'detail']).where('client_id', '=', tenant.clientId).where('event', 'like', 'sso%').execute();
  assert.deepEqual(audit.map((row) => ({ ...row })), [{ event: 'sso_login', outcome: 'success', user_id: user.userId, detail: `linked:${providerId}` }]);

  // Renewed ID tokens still say how the login was made.
  const renewed = await renewAtIdToken(server, tokens.refresh_token ?? '');
  assert.equal(renewed.status, 200);
  const renewedClaims = decodeJwt(((await renewed.json()) as TokenBody).id_token);
  assert.deepEqual([renewedClaims.amr, renewedClaims.idp, renewedClaims.sid], [['fed'], idp.issuer, claims.sid]);
});

test('the second login finds the user by its linked sub, whatever email the provider now reports', async () => {
  const { tenant, user } = await ssoTenant(server, idp);
  const first = await ssoLogin(new CookieJar(), server.config.authUrl, tenant, user.email, user.sub);
  assert.equal(first.response.status, 302);
  // The person's address changed at the provider (and is not even verified there any more).
  idp.people.set(user.sub, { sub: user.sub, email: `renamed@${user.email.split('@')[1] ?? ''}`, email_verified: false });
  const second = await ssoLogin(new CookieJar(), server.config.authUrl, tenant, user.email, user.sub);
  assert.equal(second.response.status, 302, await second.response.clone().text());
  const tokens = await exchange(tenant, locationOf(second.response, server.config.authUrl), second.request.verifier);
  assert.equal(decodeJwt(tokens.id_token).sub, user.userId);
  const audit = await server.ctx.db.selectFrom('audit_log').select('detail').where('client_id', '=', tenant.clientId).where('event', '=', 'sso_login').orderBy('at').execute();
  assert.equal(audit.length, 2);
  assert.doesNotMatch(audit[1]?.detail ?? '', /^linked:/, 'linked once, on the first login');
});

test('the identifier step: other emails get the secret form, which still signs in; the page offers it beside SSO', async () => {
  const { tenant, user } = await ssoTenant(server, idp);
  const jar = new CookieJar();
  const authorization = await clientRequest(server.config.authUrl, tenant);
  const { page, response } = await submitEmail(jar, authorization.url, tenant.email);
  assert.match(page, /<input[^>]+name="email"/);
  assert.doesNotMatch(page, /name="secret"/, 'identifier first: no secret input yet');
  assert.match(page, /Sign in with the API User's secret instead/);
  assert.equal(response.status, 200);
  const form = await response.text();
  assert.match(form, /name="secret"/, 'an email outside the SSO domains gets the secret form');
  assert.match(form, new RegExp(`value="${tenant.email}"`));

  // The secret form is offered to people of the SSO domain too, and works, unless SSO is enforced.
  const secretUrl = new URL(authorization.url);
  secretUrl.searchParams.set('login', 'secret');
  const secretPage = await request(jar, secretUrl);
  const html = await secretPage.text();
  assert.match(html, /name="secret"/);
  const { hiddenInputs } = await import('../support/login.ts');
  const signedIn = await request(jar, new URL('/oauth/authorize', server.config.authUrl), { form: { ...hiddenInputs(html), email: user.email, secret: user.secret } });
  assert.equal(signedIn.status, 302);
  const tokens = await exchange(tenant, locationOf(signedIn, server.config.authUrl), authorization.verifier);
  assert.equal(decodeJwt(tokens.id_token).amr, undefined, 'a secret login is not federated');
});
