// `wfs login`: the authorization-code flow of a native app (RFC 8252) with PKCE (RFC 7636), through
// openid-client: discovery, the authorization URL, and the code exchange with the ID token checked
// (signature from the JWKS, issuer, audience, RFC 9207 `iss`). The browser logs the API User in and
// returns to a loopback listener; for a client without a loopback redirect URI (the demo's
// /demo/callback page), the person pastes the address or code the browser ended on; PKCE binds that
// code to this login, so a pasted code cannot be someone else's.
import * as oidc from 'openid-client';
import open from 'open';
import { listenOnLoopback } from './loopback.ts';

export interface LoginOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** A loopback redirect URI registered on the API Client; any port matches (RFC 8252 §7.3). */
  redirectUri: string;
  audience: string;
  timeoutMs: number;
  /** Shows the authorization URL to the person (and opens a browser when asked to). */
  announce: (authorizationUrl: string) => void | Promise<void>;
  /** Asks the person for the address or code the browser ended on (redirect URIs that are not loopback). */
  ask: (question: string) => Promise<string>;
}

export interface LoginTokens {
  idToken: string;
  refreshToken: string;
  claims: { email?: string; company_id?: string };
}

interface Attempt {
  config: oidc.Configuration;
  state: string;
  verifier: string;
}

/** The service's issuer is `{base_url}/api/v1/iam`; its discovery document says the rest. */
async function discover(options: LoginOptions): Promise<oidc.Configuration> {
  const issuer = new URL(`${options.baseUrl.replace(/\/+$/, '')}/api/v1/iam`);
  // http only for a service on this machine (a local `npm start`); anything remote must be https.
  const local = ['127.0.0.1', '[::1]', 'localhost'].includes(issuer.hostname);
  try {
    return await oidc.discovery(issuer, options.clientId, options.clientSecret, undefined, local ? { execute: [oidc.allowInsecureRequests] } : {});
  } catch (error) {
    throw new Error(`Discovery at ${issuer.href} failed (${(error as Error).message}); is --base-url the service's BASE_URL?`, { cause: error });
  }
}

/**
 * A loopback URI without a port (`http://127.0.0.1/callback`) is ours to listen on, at any port
 * (RFC 8252 §7.3). With a port it names a page someone already serves (the demo's
 * `http://localhost:8080/demo/callback`), so the person pastes where it sent them instead.
 */
function listensOnLoopback(uri: URL): boolean {
  return uri.protocol === 'http:' && uri.port === '' && ['127.0.0.1', '[::1]', 'localhost'].includes(uri.hostname);
}

async function authorizationUrl(attempt: Attempt, redirectUri: string): Promise<string> {
  return oidc.buildAuthorizationUrl(attempt.config, {
    response_type: 'code',
    scope: 'all',
    redirect_uri: redirectUri,
    state: attempt.state,
    code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
    code_challenge_method: 'S256',
  }).href;
}

/**
 * Asks the login page before the person does: an unknown client or an unregistered redirect URI gets
 * an error page the browser would show while this command waited in vain.
 */
async function ensureAccepted(url: string, redirectUri: string): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  if (response.status === 200) return;
  const location = response.headers.get('location');
  if (response.status === 302 && location) {
    const params = new URL(location).searchParams;
    throw new Error(`The login page refused the request: ${params.get('error') ?? 'error'} (${params.get('error_description') ?? 'no description'}).`);
  }
  if (response.status === 400) {
    throw new Error(`The login page refused the request: unknown --client-id, or ${redirectUri} is not registered on the API Client (a loopback URI such as http://127.0.0.1/callback matches any port).`);
  }
  throw new Error(`The login page answered ${response.status}; try again later.`);
}

/** What the person pasted as the address the browser ended on: the whole address, or the code alone. */
function pastedCallback(text: string, attempt: Attempt, redirectUri: string): URL {
  const pasted = text.trim();
  if (/^https?:\/\//.test(pasted)) return new URL(pasted);
  if (pasted === '') throw new Error('No code given.');
  const callback = new URL(redirectUri);
  callback.search = new URLSearchParams({ code: pasted, state: attempt.state, iss: attempt.config.serverMetadata().issuer }).toString();
  return callback;
}

/** The code exchange; a refusal (RFC 6749 error) or a failed ID-token check becomes a plain message. */
async function exchange(attempt: Attempt, callback: URL, options: LoginOptions): Promise<LoginTokens> {
  const refused = callback.searchParams.get('error');
  // The person declined (or the login page refused): say why, whatever else the answer lacks; no code is exchanged.
  if (refused && callback.searchParams.get('state') === attempt.state) {
    const description = callback.searchParams.get('error_description');
    throw new Error(`Login failed: ${refused}${description ? ` (${description})` : ''}.`);
  }
  let tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
  try {
    tokens = await oidc.authorizationCodeGrant(attempt.config, callback, { pkceCodeVerifier: attempt.verifier, expectedState: attempt.state, idTokenExpected: true }, { audience: options.audience });
  } catch (error) {
    const refusal = error as { error?: string; error_description?: string; message: string };
    const reason = refusal.error ? `${refusal.error}${refusal.error_description ? ` (${refusal.error_description})` : ''}` : refusal.message;
    throw new Error(`Login failed: ${reason}.`, { cause: error });
  }
  if (!tokens.refresh_token) throw new Error('The token endpoint returned no refresh token.');
  return { idToken: tokens.id_token ?? tokens.access_token, refreshToken: tokens.refresh_token, claims: (tokens.claims() ?? {}) as LoginTokens['claims'] };
}

export async function login(options: LoginOptions): Promise<LoginTokens> {
  const attempt: Attempt = { config: await discover(options), state: oidc.randomState(), verifier: oidc.randomPKCECodeVerifier() };
  const registered = new URL(options.redirectUri);
  if (!listensOnLoopback(registered)) {
    const url = await authorizationUrl(attempt, options.redirectUri);
    await ensureAccepted(url, options.redirectUri);
    await options.announce(url);
    const pasted = await options.ask('After logging in, paste the address your browser ended on (or the code it shows): ');
    return exchange(attempt, pastedCallback(pasted, attempt, options.redirectUri), options);
  }
  const loopback = await listenOnLoopback(options.redirectUri, options.timeoutMs);
  try {
    const url = await authorizationUrl(attempt, loopback.redirectUri);
    await ensureAccepted(url, options.redirectUri);
    await options.announce(url);
    const callback = await loopback.response;
    return await exchange(attempt, callback, options);
  } finally {
    loopback.close();
  }
}

/** Opens the URL in the person's browser (the `open` package knows each platform's way); false when it could not. */
export async function openBrowser(url: string): Promise<boolean> {
  try {
    const child = await open(url, { wait: false });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
