// Helpers that drive the login and the token endpoints of one test server over HTTP (in process when
// the server answers in process); the form itself is read and submitted by test/support/login.ts.
import { codeExchange, openLoginForm, submitLoginForm, type LoginForm, type TokenBody } from '../support/login.ts';
import type { TestServer } from '../support/server.ts';
import type { Tenant } from '../support/tenants.ts';

export function authorizeUrl(server: TestServer, params: Record<string, string>): string {
  return `${server.config.authUrl}/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

export function defaultParams(tenant: Tenant, extra: Record<string, string> = {}): Record<string, string> {
  return { response_type: 'code', scope: 'all', client_id: tenant.clientId, redirect_uri: tenant.redirectUri, state: 'st-123', ...extra };
}

export async function submitLogin(
  server: TestServer,
  form: LoginForm,
  credentials: { email: string; secret: string },
  overrides: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return submitLoginForm(`${server.config.authUrl}/oauth/authorize`, form, credentials, overrides, headers);
}

/** Logs the tenant's API User in and returns the redirect location (with code, state and iss). */
export async function loginForCode(server: TestServer, tenant: Tenant, extra: Record<string, string> = {}): Promise<URL> {
  const form = await openLoginForm(authorizeUrl(server, defaultParams(tenant, extra)));
  if (form.response.status !== 200) throw new Error(`login form answered ${form.response.status}: ${form.html}`);
  const response = await submitLogin(server, form, { email: tenant.email, secret: tenant.secret });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  return new URL(location);
}

export async function postToken(server: TestServer, body: Record<string, string>, init: { query?: string; form?: boolean; headers?: Record<string, string> } = {}): Promise<Response> {
  return server.fetch(`${server.config.issuer}/oauth/token${init.query ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': init.form ? 'application/x-www-form-urlencoded' : 'application/json', ...init.headers },
    body: init.form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  });
}

/** The whole flow without a browser: login, then code exchange; returns the token response. */
export async function loginAndExchange(server: TestServer, tenant: Tenant): Promise<TokenBody> {
  const location = await loginForCode(server, tenant);
  const response = await postToken(server, codeExchange(tenant, location.searchParams.get('code') ?? ''));
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as TokenBody;
}

export async function renewAtIdToken(server: TestServer, refreshToken: string, method = 'POST'): Promise<Response> {
  return server.fetch(`${server.config.issuer}/idToken`, { method, headers: { authorization: `Bearer ${refreshToken}` } });
}

export async function configurationWith(server: TestServer, idToken: string): Promise<Response> {
  return server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: { authorization: `Bearer ${idToken}` } });
}
