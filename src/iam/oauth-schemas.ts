// Schemas of the OAuth endpoints' bodies (RFC 6749 snake_case), declared once for validation,
// serialisation and the OpenAPI document.
import { Type, type Static, type TSchema } from 'typebox';
import { PAGE_HEADER_MEANINGS } from '../platform/page-security.ts';

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
  415: 'invalid_request: a body sent that is neither JSON nor form-encoded (a request with no body at all is not refused for its type: it lacks every parameter)',
  429: 'invalid_request: over the client\'s per-minute budget, or penalised after failed client authentications; see Retry-After',
  503: 'Database unavailable; retry after Retry-After',
};

/**
 * Response headers as the OpenAPI document declares them (@fastify/swagger reads `headers` off a
 * response schema): every header an answer carries, so that a client generated from the document
 * knows each one (test/openapi/openapi.test.ts compares them with what is sent).
 */
type HeaderDeclarations = Record<string, { type: string; description: string; minimum?: number }>;

const header = (description: string) => ({ type: 'string', description });
const RETRY_AFTER: HeaderDeclarations = { 'Retry-After': { type: 'integer', minimum: 0, description: 'Seconds to wait before retrying.' } };
const NOT_STORED: HeaderDeclarations = { 'Cache-Control': header('`no-store`: the answer may carry a token (RFC 6749 §5.1).') };

/** Headers of an OAuth error answer besides Cache-Control, by status. */
const ERROR_HEADERS: Record<number, HeaderDeclarations> = {
  401: {
    'WWW-Authenticate': header(
      'At token and revoke `Basic realm="token"` (invalid_client, RFC 6749 §5.2); at idToken `Bearer` without a token, `Bearer error="invalid_token", error_description="…"` for a bad one (RFC 6750 §3).',
    ),
  },
  429: RETRY_AFTER,
  503: RETRY_AFTER,
};

export function oauthErrorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, { ...OAuthErrorBody, description: DESCRIPTIONS[s] ?? 'Error', headers: { ...NOT_STORED, ...ERROR_HEADERS[s] } }]));
}

/** Headers of every response that carries a token (RFC 6749 §5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** An OAuth success: `schema` sent with NO_STORE, declared so. */
export function notStored<T extends TSchema>(schema: T): T {
  return { ...schema, headers: { ...NOT_STORED, Pragma: header('`no-cache` (HTTP/1.0 caches).') } };
}

const PAGE_HEADERS: HeaderDeclarations = Object.fromEntries(Object.entries(PAGE_HEADER_MEANINGS).map(([name, meaning]) => [name, header(meaning)]));

/** What an HTML page's answer carries besides the page headers (pageSecurityHeaders). */
export const PAGE_EXTRAS = {
  retryAfter: RETRY_AFTER,
  formCookie: { 'Set-Cookie': header('The login form\'s CSRF cookie, sent back with the form.') },
  location: { Location: header('Where the browser goes next.') },
} satisfies Record<string, HeaderDeclarations>;

/** An HTML page (the page headers on every one), with `extras` headers. */
export const HtmlPage = (description: string, extras: HeaderDeclarations = {}) => Type.String({ description: `${description} (text/html)`, headers: { ...PAGE_HEADERS, ...extras } });

/** A page's redirect: the page headers and Location. */
export const PageRedirect = (description: string) => Type.Null({ description, headers: { ...PAGE_HEADERS, ...PAGE_EXTRAS.location } });
