// Row types of the identity tables. Instants are epoch milliseconds; flags are 0/1 integers so one
// schema serves SQLite and PostgreSQL; lists are JSON text.
import type { ColumnType } from 'kysely';

export interface ApiClientsTable {
  id: string;
  company_id: string;
  name: string;
  /** SHA-256 of the generated 256-bit secret, base64url. */
  secret_hash: string;
  redirect_uris: string;
  grants: string;
  audiences: string;
  disabled: number;
  created_at: number;
  updated_at: number;
  /** During a rotation with overlap: the older secret's hash, accepted until the instant below. */
  previous_secret_hash: string | null;
  previous_secret_expires_at: number | null;
}

export interface ApiUsersTable {
  id: string;
  client_id: string;
  email: string;
  /** scrypt$N$r$p$salt$hash */
  secret_hash: string;
  disabled: number;
  created_at: number;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  /** The private JWK sealed with the secret box, bound to the kid (keys.ts); JSON in clear only in rows of earlier releases, sealed at start-up. */
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  /** Signs only from this instant, so every instance has published it first. */
  activates_at: number;
  /** Stops signing from this instant (a newer key took over). */
  retired_at: number | null;
  /** Leaves the JWKS from this instant: every token it signed has expired. */
  unpublish_at: number | null;
}

export interface GrantsTable {
  /** The `sid` claim of every token issued from this grant. */
  id: string;
  client_id: string;
  user_id: string | null;
  kind: string;
  auth_time: number;
  created_at: number;
  /** Absolute cap of the refresh-token chain. */
  chain_expires_at: number;
  /** Audience of the ID tokens issued from this grant (null: the default audience). */
  audience: string | null;
  /** The revoking writer's clock: for people and for the start-up read, never for ordering. */
  revoked_at: number | null;
  revoked_reason: string | null;
  /** Commit order of the revocation, set by migration 0016's trigger only (src/iam/revocations.ts). */
  revoked_seq: ColumnType<number | null, never, never>;
  /** The SSO provider the login came through (null: the API User's secret); see src/sso. */
  sso_provider_id: string | null;
  /** That provider's issuer: the `idp` claim of every ID token of the grant. */
  idp: string | null;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  nonce: string | null;
  code_challenge: string | null;
  auth_time: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** Set when the code was exchanged, so a replay can revoke what it produced. */
  grant_id: string | null;
  /** The SSO provider of the login, passed on to the grant (null: the API User's secret). */
  sso_provider_id: string | null;
  idp: string | null;
}

export interface RefreshTokensTable {
  jti: string;
  grant_id: string;
  parent_jti: string | null;
  issued_at: number;
  expires_at: number;
  superseded_at: number | null;
}

export interface AuditLogTable {
  id: string;
  at: number;
  event: string;
  outcome: string;
  client_id: string | null;
  user_id: string | null;
  address: string | null;
  detail: string | null;
  /** The organisation the event concerns (the client's, or the console user's); null when unknown. */
  organisation_id: string | null;
  /** Who made a change: `operator` or `console_user` (with id and email); null for API events. */
  actor_kind: string | null;
  actor_id: string | null;
  actor_email: string | null;
  /** JSON object of further non-secret facts (a second actor, a grant, an overlap). */
  context: string | null;
}

export interface GrantRequestsTable {
  id: string;
  organisation_id: string;
  client_id: string;
  grant_type: string;
  reason: string;
  /** pending | approved | declined */
  status: string;
  /** The requesting actor as JSON (see audit.ts Actor). */
  requested_by: string;
  created_at: number;
  decided_at: number | null;
  decided_by: string | null;
  decision_reason: string | null;
}

export interface IamTables {
  api_clients: ApiClientsTable;
  api_users: ApiUsersTable;
  signing_keys: SigningKeysTable;
  grants: GrantsTable;
  authorization_codes: AuthorizationCodesTable;
  refresh_tokens: RefreshTokensTable;
  audit_log: AuditLogTable;
  grant_requests: GrantRequestsTable;
}

declare module '../platform/db/schema.ts' {
  interface Database extends IamTables {}
}
