// `wfs login`: the authorization-code flow of a native app (RFC 8252) with PKCE (RFC 7636). The
// browser logs the API User in and returns to a loopback listener; the code is exchanged with the
// client's credentials; the refresh token is what an integration keeps.
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

export async function login(options: LoginOptions): Promise<TokenResponse> {
  const discovery = await discover(options.baseUrl);
  const loopback = await listenOnLoopback(options.redirectUri, options.timeoutMs);
  try {
    const state = base64url(randomBytes(24));
    const verifier = base64url(randomBytes(32));
    const url = new URL(discovery.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      scope: 'all',
      client_id: options.clientId,
      redirect_uri: loopback.redirectUri,
      state,
      code_challenge: base64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
    }).toString();
    options.announce(url.toString());
    const code = codeFrom(await loopback.response, state, discovery.issuer);
    return await exchange(discovery, options, code, loopback.redirectUri, verifier);
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
