// Schemas of the OAuth endpoints' bodies (RFC 6749 snake_case), declared once for validation,
// serialisation and the OpenAPI document.
import { Type, type Static, type TSchema } from 'typebox';

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'The ID token (a JWT); also the access token.' }),
    id_token: Type.String({ description: 'ES256-signed JWT; see the discovery document.' }),
    refresh_token: Type.Optional(Type.String({ description: 'Absent for client_credentials, and at idToken unless renewed.' })),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the ID token expires (ACCESS_TOKEN_TTL).' }),
    scope: Type.Literal('all'),
  },
  { description: 'OAuth 2.0 token response (sent with Cache-Control: no-store)' },
);
export type TokenResponse = Static<typeof TokenResponse>;

const OAuthErrorBody = Type.Object({
  error: Type.String({ description: 'RFC 6749 §5.2 / RFC 6750 §3.1 error code; invalid_request on a 429 (§5.2 has no code of its own for it)' }),
  error_description: Type.String(),
});

const DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_request, invalid_grant, invalid_scope, invalid_target, unauthorized_client or unsupported_grant_type',
  401: 'invalid_client (token, revoke) or invalid_token (idToken), with WWW-Authenticate',
  413: 'invalid_request: the body is over 64 KiB',
  415: 'Body is neither JSON nor form-encoded',
  429: 'invalid_request: over the client\'s per-minute budget, or penalised after failed client authentications; see Retry-After',
  503: 'Database unavailable; retry',
};

export function oauthErrorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, { ...OAuthErrorBody, description: DESCRIPTIONS[s] ?? 'Error' }]));
}

export const HtmlPage = (description: string) => Type.String({ description: `${description} (text/html)` });

/** Headers of every response that carries a token (RFC 6749 §5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;
