// The SSO login as a browser without JavaScript walks it, over HTTP: the service's identifier page,
// the redirect to the customer's provider, its sign-in form, the return to the service's callback and
// the redirect to the client with a code. Redirects are followed by hand with a cookie jar, so each
// test can stop at (or tamper with) any step.
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { hiddenInputs } from '../support/login.ts';
import { fetchAny } from '../support/in-process.ts';

/** Cookies by host (name=value only: these flows never depend on paths or expiry). */
export class CookieJar {
  readonly #byHost = new Map<string, Map<string, string>>();

  header(url: string | URL): string {
    return [...(this.#byHost.get(new URL(url).host) ?? new Map<string, string>())].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  store(url: string | URL, response: Response): void {
    const host = new URL(url).host;
    const cookies = this.#byHost.get(host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    this.#byHost.set(host, cookies);
  }

  /** The value of one cookie of a host. */
  get(url: string | URL, name: string): string | undefined {
    return this.#byHost.get(new URL(url).host)?.get(name);
  }

  set(url: string | URL, name: string, value: string): void {
    const host = new URL(url).host;
    this.#byHost.set(host, (this.#byHost.get(host) ?? new Map<string, string>()).set(name, value));
  }
}

export async function request(jar: CookieJar, url: string | URL, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
  const cookie = jar.header(url);
  const response = await fetchAny(url, {
    method: init.method ?? (init.form ? 'POST' : 'GET'),
    redirect: 'manual',
    headers: { ...(cookie ? { cookie } : {}), ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(init.form ? { body: new URLSearchParams(init.form) } : {}),
  });
  jar.store(url, response);
  return response;
}

export function locationOf(response: Response, base: string | URL): URL {
  const location = response.headers.get('location');
  assert.ok(location, `expected a redirect, got ${response.status}`);
  return new URL(location, base);
}

/** The client's side of the flow: an authorization request with PKCE, state and nonce. */
export interface ClientRequest {
  url: URL;
  state: string;
  nonce: string;
  verifier: string;
}

export async function clientRequest(authUrl: string, client: { clientId: string; redirectUri: string }): Promise<ClientRequest> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = new URL(`${authUrl}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'all openid', state, nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  }).toString();
  return { url, state, nonce, verifier };
}

/** Opens the login page and submits the email (the identifier step); answers the service's response. */
export async function submitEmail(jar: CookieJar, loginUrl: URL, email: string): Promise<{ page: string; response: Response }> {
  const page = await request(jar, loginUrl);
  const html = await page.text();
  assert.equal(page.status, 200, html);
  const response = await request(jar, new URL('/oauth/authorize', loginUrl), { form: { ...hiddenInputs(html), email } });
  return { page: html, response };
}

/**
 * At the provider: follows its redirects, signs in as `account` on its form, and stops at the redirect
 * back to the service's callback; returns that callback URL.
 */
export async function signInAtProvider(jar: CookieJar, providerUrl: URL, account: string, callbackPrefix: string): Promise<URL> {
  let url = providerUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (url.href.startsWith(callbackPrefix)) return url;
    const response = await request(jar, url);
    if (response.status === 200) {
      const html = await response.text();
      assert.match(html, /Customer identity provider/);
      url = locationOf(await request(jar, url, { form: { login: account } }), url);
      continue;
    }
    url = locationOf(response, url);
  }
  throw new Error('the provider never sent the browser back');
}

/** The whole walk, from the client's authorization request to the service's answer at its callback. */
export async function ssoLogin(jar: CookieJar, authUrl: string, client: { clientId: string; redirectUri: string }, email: string, account: string): Promise<{ request: ClientRequest; callbackUrl: URL; response: Response }> {
  const authorization = await clientRequest(authUrl, client);
  const { response: routed } = await submitEmail(jar, authorization.url, email);
  assert.equal(routed.status, 302, 'the email of an SSO domain goes to the provider');
  const callbackUrl = await signInAtProvider(jar, locationOf(routed, authUrl), account, `${authUrl}/oauth/sso/callback`);
  return { request: authorization, callbackUrl, response: await request(jar, callbackUrl) };
}
