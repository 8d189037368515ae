// `wfs login`: the authorization-code flow of a native app (RFC 8252) with PKCE (RFC 7636). The
// browser logs the API User in and returns to a loopback listener; the code is exchanged with the
// client's credentials; the refresh token is what an integration keeps. For a client without a
// loopback redirect URI (the demo's /demo/callback page), the person pastes the address or code the
// browser ended on; PKCE binds that code to this login, so a pasted code cannot be someone else's.
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { listenOnLoopback } from './loopback.ts';
import type { TokenResponse } from '../../packages/client/src/index.ts';

export interface LoginOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** A loopback redirect URI registered on the API Client; any port matches (RFC 8252 §7.3). */
  redirectUri: string;
  audience: string;
  timeoutMs: number;
  /** Shows the authorization URL to the person (and opens a browser when asked to). */
  announce: (authorizationUrl: string) => void;
  /** Asks the person for the address or code the browser ended on (redirect URIs that are not loopback). */
  ask: (question: string) => Promise<string>;
}

interface Attempt {
  discovery: Discovery;
  state: string;
  verifier: string;
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
}

const base64url = (bytes: Buffer): string => bytes.toString('base64url');

async function discover(baseUrl: string): Promise<Discovery> {
  const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/api/v1/iam/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`Discovery at ${baseUrl} answered ${response.status}; is --base-url the service's BASE_URL?`);
  return (await response.json()) as Discovery;
}

/** Checks the authorization response: our state, the expected issuer (RFC 9207), a code. */
function codeFrom(params: URLSearchParams, state: string, issuer: string): string {
  if (params.get('state') !== state) throw new Error('The login answered with another state; start again.');
  const iss = params.get('iss');
  if (iss !== null && iss !== issuer) throw new Error(`The login answered from issuer ${iss}, expected ${issuer}.`);
  const error = params.get('error');
  if (error) throw new Error(`Login failed: ${error}${params.get('error_description') ? ` (${params.get('error_description')})` : ''}.`);
  const code = params.get('code');
  if (!code) throw new Error('The login answered without a code.');
  return code;
}

async function exchange(discovery: Discovery, options: LoginOptions, code: string, redirectUri: string, verifier: string): Promise<TokenResponse> {
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: options.clientId,
      client_secret: options.clientSecret,
      code_verifier: verifier,
      audience: options.audience,
    }),
  });
  const body = (await response.json()) as TokenResponse & { error?: string; error_description?: string };
  if (!response.ok) throw new Error(`The token endpoint refused the code: ${body.error ?? response.status}${body.error_description ? ` (${body.error_description})` : ''}.`);
  if (!body.refresh_token) throw new Error('The token endpoint returned no refresh token.');
  return body;
}

/**
 * A loopback URI without a port (`http://127.0.0.1/callback`) is ours to listen on, at any port
 * (RFC 8252 §7.3). With a port it names a page someone already serves (the demo's
 * `http://localhost:8080/demo/callback`), so the person pastes where it sent them instead.
 */
function listensOnLoopback(uri: URL): boolean {
  return uri.protocol === 'http:' && uri.port === '' && ['127.0.0.1', '[::1]', 'localhost'].includes(uri.hostname);
}

function authorizationUrl(attempt: Attempt, clientId: string, redirectUri: string): string {
  const url = new URL(attempt.discovery.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    scope: 'all',
    client_id: clientId,
    redirect_uri: redirectUri,
    state: attempt.state,
    code_challenge: base64url(createHash('sha256').update(attempt.verifier).digest()),
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
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

/** The code from what the person pasted: the whole address the browser ended on, or the code alone. */
function codeFromPasted(text: string, attempt: Attempt): string {
  const pasted = text.trim();
  if (/^https?:\/\//.test(pasted)) return codeFrom(new URL(pasted).searchParams, attempt.state, attempt.discovery.issuer);
  if (pasted === '') throw new Error('No code given.');
  return pasted;
}

export async function login(options: LoginOptions): Promise<TokenResponse> {
  const attempt: Attempt = { discovery: await discover(options.baseUrl), state: base64url(randomBytes(24)), verifier: base64url(randomBytes(32)) };
  const registered = new URL(options.redirectUri);
  if (!listensOnLoopback(registered)) {
    const url = authorizationUrl(attempt, options.clientId, options.redirectUri);
    await ensureAccepted(url, options.redirectUri);
    options.announce(url);
    const code = codeFromPasted(await options.ask('After logging in, paste the address your browser ended on (or the code it shows): '), attempt);
    return exchange(attempt.discovery, options, code, options.redirectUri, attempt.verifier);
  }
  const loopback = await listenOnLoopback(options.redirectUri, options.timeoutMs);
  try {
    const url = authorizationUrl(attempt, options.clientId, loopback.redirectUri);
    await ensureAccepted(url, options.redirectUri);
    options.announce(url);
    const code = codeFrom(await loopback.response, attempt.state, attempt.discovery.issuer);
    return await exchange(attempt.discovery, options, code, loopback.redirectUri, attempt.verifier);
  } finally {
    loopback.close();
  }
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Opens the URL in the desktop's browser when xdg-open (or macOS `open`) exists; reports whether it tried. */
export function openBrowser(url: string): boolean {
  const opener = ['xdg-open', 'open'].find(onPath);
  if (!opener) return false;
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
  return true;
}
