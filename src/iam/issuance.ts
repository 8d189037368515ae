// Issuing the token response (contract: identity and access): an ID token that is also the access token, and a refresh
// token recorded server-side so its chain can be renewed, superseded and revoked.
import type { Db } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';
import type { KeyRing } from './key-ring.ts';
import { insertRefreshToken } from './refresh-tokens.ts';
import { signIdToken, signRefreshToken, type AccessClaims, type TokenSettings, type TokenSubject } from './tokens.ts';
import type { TokenResponse } from './oauth-schemas.ts';

export interface IssuanceSettings extends TokenSettings {
  refreshTokenTtl: number;
}

/** A grant resolved for issuing: an ID token's subject, and the cap on its refresh-token chain. */
export interface GrantContext extends TokenSubject {
  chainExpiresAt: number;
}

/** A grant as stored, with what decides whether it may still issue tokens. */
export interface LoadedGrant extends GrantContext {
  revokedAt: number | null;
  clientDisabled: boolean;
  userDisabled: boolean;
  /** A login with the API User's own secret, in an organisation that now enforces SSO (CONTRACT §8). */
  secretLoginUnderSso: boolean;
}

/** Why a grant may no longer issue tokens, or undefined when it may. */
export function grantRefusal(grant: LoadedGrant): string | undefined {
  if (grant.revokedAt !== null) return 'The grant has been revoked.';
  if (grant.clientDisabled) return 'The API client is disabled.';
  if (grant.userDisabled) return 'The API user is disabled.';
  if (grant.secretLoginUnderSso) return 'The organisation signs its API Users in through its identity provider only: a login with the API User\'s secret no longer issues tokens.';
  return undefined;
}

/** Records a refresh token for the grant and signs it; its lifetime never passes the chain's cap. */
export async function issueRefreshToken(
  db: Db,
  keys: KeyRing,
  settings: IssuanceSettings,
  grant: GrantContext,
  parentJti: string | null,
  now: number,
): Promise<string> {
  const jti = newId('rt');
  // One whole-second iat, like the ID token's: the JWT's exp and the record's expiry both derive from
  // it, so exp − iat is exactly REFRESH_TOKEN_TTL (unless the chain's end comes first).
  const issuedAt = Math.floor(now / 1000) * 1000;
  const expiresAt = Math.min(issuedAt + settings.refreshTokenTtl * 1000, grant.chainExpiresAt);
  await insertRefreshToken(db, { jti, grantId: grant.grantId, parentJti, issuedAt, expiresAt });
  return signRecordedRefreshToken(keys, settings, grant, { jti, issuedAt, expiresAt });
}

/**
 * Signs the refresh token a record describes. Used when issuing, and to hand a retrying client the
 * same (already recorded) successor again during the grace period.
 */
export function signRecordedRefreshToken(
  keys: KeyRing,
  settings: IssuanceSettings,
  grant: GrantContext,
  record: { jti: string; issuedAt: number; expiresAt: number },
): Promise<string> {
  return signRefreshToken(keys, settings.issuer, {
    subject: grant.userId ?? grant.clientId,
    clientId: grant.clientId,
    grantId: grant.grantId,
    jti: record.jti,
    issuedAt: record.issuedAt,
    expiresAt: record.expiresAt,
  });
}

export async function issueIdToken(
  keys: KeyRing,
  settings: IssuanceSettings,
  grant: TokenSubject,
  now: number,
  extra: { audience?: string; nonce?: string | null } = {},
): Promise<{ token: string; claims: AccessClaims }> {
  return signIdToken(keys, settings, { ...grant, audience: extra.audience ?? grant.audience, nonce: extra.nonce ?? null }, now);
}

export function tokenResponse(idToken: string, settings: IssuanceSettings, refreshToken?: string): TokenResponse {
  return {
    access_token: idToken,
    id_token: idToken,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    token_type: 'Bearer',
    expires_in: settings.accessTokenTtl,
    scope: 'all',
  };
}
