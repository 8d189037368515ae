// The authorization request's rules (CONTRACT §2 "Authorize"), one check after another. A request
// whose client or redirect URI cannot be trusted is answered with an HTML error page and never
// redirected (RFC 6749 §4.1.2.1); any other bad parameter is reported to the redirect URI.
import { Type, type Static } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import { OAuthError } from '../platform/errors.ts';
import { findClient, redirectUriProblem, redirectUriRegistered, scopeAcceptable, type OAuthClient } from './clients.ts';

const param = (description: string) => Type.Optional(Type.String({ maxLength: 4096, description }));

export const AuthorizationParams = Type.Object(
  {
    response_type: param('"code"'),
    client_id: param('The API Client id'),
    redirect_uri: param('One of the client\'s registered redirect URIs (any port on a loopback address)'),
    scope: param('"all" (or "all openid")'),
    state: param('Opaque; returned byte for byte'),
    nonce: Type.Optional(Type.String({ maxLength: 512, description: 'Copied into the ID token' })),
    code_challenge: param('PKCE (RFC 7636): BASE64URL(SHA-256(code_verifier))'),
    code_challenge_method: param('"S256" (the only method)'),
  },
  // RFC 6749 §3.1: unknown request parameters are ignored.
  { additionalProperties: true },
);
export type AuthorizationParams = Static<typeof AuthorizationParams>;

/** The parameters the login form carries in hidden inputs, so the POST repeats the request. */
export const CARRIED_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method'] as const;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  nonce: string | null;
  codeChallenge: string | null;
  carried: Record<string, string>;
}

export type CheckedRequest = { ok: true; request: AuthorizationRequest } | { ok: false; redirectTo: string };

function untrusted(description: string): OAuthError {
  return new OAuthError(400, 'invalid_request', description);
}

/** Appends parameters to a redirect URI, keeping the query it already has exactly as registered. */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  const separator = !uri.includes('?') ? '?' : /[?&]$/.test(uri) ? '' : '&';
  return `${uri}${separator}${query.toString()}`;
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

function parameterProblem(params: AuthorizationParams): { error: string; description: string } | undefined {
  if (params.response_type === undefined) return { error: 'invalid_request', description: 'response_type is required.' };
  if (params.response_type !== 'code') return { error: 'unsupported_response_type', description: 'response_type must be "code".' };
  if (params.scope === undefined || !scopeAcceptable(params.scope)) return { error: 'invalid_scope', description: 'scope must be "all".' };
  if (params.code_challenge === undefined) {
    if (params.code_challenge_method !== undefined) return { error: 'invalid_request', description: 'code_challenge_method was sent without code_challenge.' };
    return undefined;
  }
  if (params.code_challenge_method !== 'S256') return { error: 'invalid_request', description: 'code_challenge_method must be "S256".' };
  if (!S256_CHALLENGE.test(params.code_challenge)) return { error: 'invalid_request', description: 'code_challenge must be 43 base64url characters.' };
  return undefined;
}

export async function checkAuthorizationRequest(db: Db, issuer: string, params: AuthorizationParams): Promise<CheckedRequest> {
  if (!params.client_id) throw untrusted('The request has no client_id.');
  const client = await findClient(db, params.client_id);
  if (!client || client.disabled) throw untrusted('The client_id is unknown, or the client is disabled.');
  if (!params.redirect_uri) throw untrusted('The request has no redirect_uri.');
  const malformed = redirectUriProblem(params.redirect_uri);
  if (malformed) throw untrusted(`The redirect_uri is malformed: it ${malformed}.`);
  if (!redirectUriRegistered(client.redirectUris, params.redirect_uri)) throw untrusted('The redirect_uri is not registered for this client.');

  const problem = parameterProblem(params);
  if (problem) {
    return { ok: false, redirectTo: withParams(params.redirect_uri, { error: problem.error, error_description: problem.description, state: params.state, iss: issuer }) };
  }
  const carried: Record<string, string> = {};
  for (const name of CARRIED_PARAMS) {
    const value = params[name];
    if (value !== undefined) carried[name] = value;
  }
  return {
    ok: true,
    request: {
      client,
      redirectUri: params.redirect_uri,
      state: params.state,
      nonce: params.nonce || null,
      codeChallenge: params.code_challenge ?? null,
      carried,
    },
  };
}
