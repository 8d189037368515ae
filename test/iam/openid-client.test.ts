// The whole authorization code flow as an integrator runs it with a strict OpenID client library
// (openid-client v6): discovery, PKCE + state + nonce, the login form over HTTP, the code exchange
// with signature checks, the ID token's claims, a secured call, and renewal through idToken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { useTestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { renewAtIdToken, submitLogin } from './helpers.ts';
import { openLoginForm, type TokenBody } from '../support/login.ts';

const server = useTestServer();

test('an openid-client integrator logs in, exchanges the code, calls the API and renews the ID token', async () => {
  const tenant = await provisionTenant(server.ctx, { name: 'Integrator', redirectUris: ['https://integrator.example/callback'] });
  const config = await oidc.discovery(new URL(server.config.issuer), tenant.clientId, tenant.clientSecret, undefined, { execute: [oidc.allowInsecureRequests] });
  oidc.enableNonRepudiationChecks(config);
  assert.equal(config.serverMetadata().issuer, server.config.issuer);
  assert.equal(config.serverMetadata().authorization_response_iss_parameter_supported, true);

  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const authorizationUrl = oidc.buildAuthorizationUrl(config, {
    redirect_uri: tenant.redirectUri,
    scope: 'all openid',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  assert.equal(authorizationUrl.origin + authorizationUrl.pathname, `${server.config.authUrl}/oauth/authorize`);

  const form = await openLoginForm(authorizationUrl.href);
  assert.equal(form.response.status, 200);
  assert.ok(form.fields.csrf_token, 'the form carries a CSRF token');
  assert.match(form.cookie, /wfs_login_csrf=/);
  const redirect = await submitLogin(server, form, { email: tenant.email, secret: tenant.secret });
  assert.equal(redirect.status, 302);
  const callback = new URL(redirect.headers.get('location') ?? '');

  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.equal(tokens.access_token, tokens.id_token);
  assert.equal(tokens.scope, 'all');
  assert.equal(tokens.expires_in, 3600);
  assert.ok(tokens.refresh_token);
  const claims = tokens.claims();
  assert.ok(claims);
  assert.equal(claims.iss, server.config.issuer);
  assert.equal(claims.sub, tenant.userId);
  assert.deepEqual(claims.aud, ['service-api', tenant.clientId]);
  assert.equal(claims.azp, tenant.clientId);
  assert.equal(claims.nonce, nonce);
  assert.equal(claims.scope, 'all');
  assert.equal(claims.company_id, tenant.companyId);
  assert.equal(claims.org_id, tenant.organisationId);
  assert.equal(claims.email, tenant.email);
  assert.match(claims.sid as string, /^sid_/);
  assert.equal(claims.exp - claims.iat, 3600);
  assert.equal(typeof claims.auth_time, 'number');

  const configuration = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${server.baseUrl}/api/v1/company/configuration`), 'GET');
  assert.equal(configuration.status, 200);
  assert.equal(((await configuration.json()) as { company: { id: string } }).company.id, tenant.companyId);

  const renewal = await renewAtIdToken(server, tokens.refresh_token);
  assert.equal(renewal.status, 200);
  assert.equal(renewal.headers.get('cache-control'), 'no-store');
  const renewed = (await renewal.json()) as TokenBody;
  assert.equal(renewed.refresh_token, undefined, 'a fresh refresh token is not renewed');
  assert.notEqual(renewed.id_token, tokens.id_token);
  const again = await oidc.fetchProtectedResource(config, renewed.id_token, new URL(`${server.baseUrl}/api/v1/company/configuration`), 'GET');
  assert.equal(again.status, 200);
});

test('openid-client with client_secret_basic and without PKCE also completes the flow', async () => {
  const tenant = await provisionTenant(server.ctx, { redirectUris: ['http://127.0.0.1/cb'] });
  const config = await oidc.discovery(new URL(server.config.issuer), tenant.clientId, tenant.clientSecret, oidc.ClientSecretBasic(tenant.clientSecret), { execute: [oidc.allowInsecureRequests] });
  oidc.enableNonRepudiationChecks(config);
  const state = 'plain state';
  const redirectUri = 'http://127.0.0.1:43123/cb';
  const form = await openLoginForm(oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'all', state }).href);
  const redirect = await submitLogin(server, form, { email: tenant.email, secret: tenant.secret });
  const tokens = await oidc.authorizationCodeGrant(config, new URL(redirect.headers.get('location') ?? ''), { expectedState: state });
  assert.equal(tokens.claims()?.sub, tenant.userId);
});
