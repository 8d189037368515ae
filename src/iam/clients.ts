// API Clients as the OAuth endpoints see them: lookup, redirect-URI matching (exact, or any port on
// a loopback address per RFC 8252 §7.3), and client authentication by body or HTTP Basic (RFC 6749
// §2.3.1, whose Basic credentials are form-encoded before base64).
import type { Db } from '../platform/db/database.ts';
import { oauth } from '../platform/errors.ts';
import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '../platform/ids.ts';

export interface OAuthClient {
  id: string;
  name: string;
  companyId: string;
  organisationId: string;
  redirectUris: string[];
  grants: string[];
  audiences: string[];
  disabled: boolean;
  secretHash: string;
  /** The older secret of a rotation with overlap, accepted until `previousSecretExpiresAt`. */
  previousSecretHash: string | null;
  previousSecretExpiresAt: number | null;
  /** The stored columns that decide whether the client may have a token, as read. */
  version: ClientVersion;
}

/**
 * A client row's secret hashes, grants, audiences, as stored (lists as their JSON text): a statement
 * that must act only on the client as it was checked compares them, with `disabled = 0`
 * (client-credentials issue, issue-records.ts).
 */
export interface ClientVersion {
  secretHash: string;
  previousSecretHash: string | null;
  previousSecretExpiresAt: number | null;
  grants: string;
  audiences: string;
}

export async function findClient(db: Db, clientId: string): Promise<OAuthClient | undefined> {
  const row = await db
    .selectFrom('api_clients')
    // Every token request authenticates its client: the organisation in the same statement (docs/architecture.md, "Joins of companies").
    .innerJoin('companies', 'companies.id', 'api_clients.company_id')
    .selectAll('api_clients')
    .select('companies.organisation_id')
    .where('api_clients.id', '=', clientId)
    .executeTakeFirst();
  if (!row) return undefined;
  const previousSecretExpiresAt = row.previous_secret_expires_at === null ? null : Number(row.previous_secret_expires_at);
  return {
    id: row.id,
    name: row.name,
    companyId: row.company_id,
    organisationId: row.organisation_id,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    grants: JSON.parse(row.grants) as string[],
    audiences: JSON.parse(row.audiences) as string[],
    disabled: row.disabled === 1,
    secretHash: row.secret_hash,
    previousSecretHash: row.previous_secret_hash,
    previousSecretExpiresAt,
    version: { secretHash: row.secret_hash, previousSecretHash: row.previous_secret_hash, previousSecretExpiresAt, grants: row.grants, audiences: row.audiences },
  };
}

// RFC 3986's characters, and % only as a percent-encoding: no spaces, controls or raw non-ASCII,
// which URL parsers silently drop or re-encode (so the text registered would not be the text used).
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const PORT = /^[1-9][0-9]{0,4}$/;

/** The port as written in the authority (after any userinfo and host), or undefined without one. */
function writtenPort(uri: string): string | undefined {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(uri)?.[1];
  if (authority === undefined) return undefined;
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  const afterHost = hostAndPort.startsWith('[') ? hostAndPort.slice(hostAndPort.indexOf(']') + 1) : hostAndPort;
  const colon = afterHost.indexOf(':');
  return colon < 0 ? undefined : afterHost.slice(colon + 1);
}

/**
 * What is wrong with the form of a redirect URI, or undefined: checked at registration (beside the
 * scheme rules of provisioning) and before an authorization request's redirect_uri is trusted, so a
 * URI no browser can reach is never redirected to.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (!URI_CHARACTERS.test(uri)) return 'must be a URI (RFC 3986): no spaces, control or non-ASCII characters, and % only in %XX';
  const port = writtenPort(uri);
  if (port !== undefined && !(PORT.test(port) && Number(port) <= 65_535)) return 'must have a port from 1 to 65535, written without leading zeros';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not contain a fragment';
  return undefined;
}

// Compared on the raw text, never on a parsed-and-normalised URL, so look-alikes cannot slip through.
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::\d{1,5})?([/?].*)?$/;

export function redirectUriRegistered(registered: string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const asked = LOOPBACK.exec(requested);
  if (!asked) return false;
  return registered.some((uri) => {
    const known = LOOPBACK.exec(uri);
    return known !== null && known[1] === asked[1] && (known[2] ?? '') === (asked[2] ?? '');
  });
}

/** `all`, or `all openid` in either order (for OpenID clients that add `openid`). */
export function scopeAcceptable(scope: string): boolean {
  const parts = scope.split(' ');
  const unique = new Set(parts);
  if (unique.size !== parts.length || !unique.has('all')) return false;
  return [...unique].every((s) => s === 'all' || s === 'openid');
}

export interface PresentedCredentials {
  clientId: string;
  secret: string | undefined;
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * The client credentials of a request: HTTP Basic or `client_id`/`client_secret` in the body, never
 * both (RFC 6749 §2.3). Undefined when the request names no client at all.
 */
export function presentedCredentials(authorization: string | undefined, body: { client_id?: string; client_secret?: string }): PresentedCredentials | undefined {
  const basic = authorization ? /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization) : null;
  if (authorization && /^Basic\b/i.test(authorization)) {
    if (!basic?.[1]) throw oauth.invalidClient('The Basic credentials are malformed.');
    if (body.client_secret !== undefined) throw oauth.invalidRequest('Use one client authentication method, not both Basic and client_secret.');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw oauth.invalidClient('The Basic credentials are malformed.');
    let clientId: string;
    let secret: string;
    try {
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw oauth.invalidClient('The Basic credentials are malformed.');
    }
    if (body.client_id !== undefined && body.client_id !== clientId) throw oauth.invalidRequest('client_id differs from the Basic credentials.');
    return { clientId, secret };
  }
  if (body.client_id === undefined || body.client_id === '') return undefined;
  return { clientId: body.client_id, secret: body.client_secret };
}

// Checked against when the client does not exist, so timing does not tell which client ids exist.
const NO_CLIENT_HASH = sha256('no such client');
const NO_CLIENT = { secretHash: NO_CLIENT_HASH, previousSecretHash: null, previousSecretExpiresAt: null };

/** Two SHA-256 digests compared in constant time (their length is no secret). */
function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

type SecretHashes = Pick<OAuthClient, 'secretHash' | 'previousSecretHash' | 'previousSecretExpiresAt'>;

/**
 * Whether `digest` (the SHA-256 of the presented secret: the token endpoint hashes it once per request)
 * is one of the client's live secrets: the current one, or the older one of a rotation with overlap
 * until its expiry. Both are always compared, so timing tells neither apart.
 */
function clientDigestAccepted(client: SecretHashes, digest: string, now: number): boolean {
  const current = sameDigest(digest, client.secretHash);
  const previous = sameDigest(digest, client.previousSecretHash ?? NO_CLIENT_HASH);
  const previousLive = client.previousSecretHash !== null && client.previousSecretExpiresAt !== null && now < client.previousSecretExpiresAt;
  return current || (previous && previousLive);
}

/**
 * `client` when it is enabled and the presented secret (`digest`, its SHA-256; undefined when none
 * was sent) is one of its live secrets, else undefined. An unknown client costs the same comparisons.
 */
export function verifiedClient(client: OAuthClient | undefined, digest: string | undefined, now: number): OAuthClient | undefined {
  const matches = clientDigestAccepted(client ?? NO_CLIENT, digest ?? NO_CLIENT_HASH, now);
  if (!client || !matches || digest === undefined || client.disabled) return undefined;
  return client;
}

