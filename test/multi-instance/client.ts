// What an integrator's client does, aimed at one chosen instance: the browser login (form, CSRF
// cookie and hidden fields, no JavaScript), the code exchange, renewal through idToken, API calls.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { codeExchange, openLoginForm, submitLoginForm, type TokenBody } from '../support/login.ts';
import type { Tenant } from '../support/tenants.ts';

/**
 * Logs the tenant's API User in: the form comes from `formInstance`, the submission goes to
 * `submitInstance` (the load balancer may send the two requests to different instances). Returns
 * the redirect the browser would follow.
 */
export async function logIn(formInstance: string, submitInstance: string, tenant: Tenant, state = 'state-123'): Promise<URL> {
  const query = new URLSearchParams({ response_type: 'code', scope: 'all', client_id: tenant.clientId, state, redirect_uri: tenant.redirectUri });
  const page = `${formInstance}/oauth/authorize?${query.toString()}`;
  const form = await openLoginForm(page);
  assert.equal(form.response.status, 200, form.html);
  assert.ok(form.action !== undefined, 'the authorize page has a form');
  // The form's action names the public address; this request goes to the chosen instance instead.
  const action = new URL(form.action || page, page);
  const response = await submitLoginForm(new URL(`${action.pathname}${action.search}`, submitInstance), form, { email: tenant.email, secret: tenant.secret });
  const body = await response.text();
  assert.equal(response.status, 302, body);
  const location = new URL(response.headers.get('location') ?? '');
  assert.equal(`${location.origin}${location.pathname}`, tenant.redirectUri);
  assert.equal(location.searchParams.get('state'), state);
  return location;
}

export async function exchangeCode(instanceUrl: string, tenant: Tenant, code: string): Promise<Response> {
  return fetch(`${instanceUrl}/api/v1/iam/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(codeExchange(tenant, code)),
  });
}

export async function renew(instanceUrl: string, refreshToken: string): Promise<Response> {
  return fetch(`${instanceUrl}/api/v1/iam/idToken`, { method: 'POST', headers: { authorization: `Bearer ${refreshToken}` } });
}

/** RFC 7009 revocation, the client authenticating in the form body. */
export async function revoke(instanceUrl: string, tenant: Tenant, token: string): Promise<Response> {
  return fetch(`${instanceUrl}/api/v1/iam/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: tenant.clientId, client_secret: tenant.clientSecret }),
  });
}

export async function tokens(response: Response): Promise<TokenBody> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  return JSON.parse(text) as TokenBody;
}

/** A secured API call; the caller reads the body. */
export async function api(instanceUrl: string, token: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${instanceUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

export function jwtHeader(token: string): { kid?: string; alg?: string; typ?: string } {
  return JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: string };
}

export function jwtClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Polls `check` until it returns true; fails with `what` after `timeoutMs`. Returns the time taken. */
export async function eventually(what: string, timeoutMs: number, check: () => Promise<boolean>, intervalMs = 100): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
