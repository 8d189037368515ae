// The operator actions whose results differ from the domain functions' return values: the CLI and
// the operator API both call these, so `wfs … --json` and the HTTP responses cannot drift apart.
// (Actions whose domain function already returns the documented shape are called directly.)
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import { rotateClientSecret, rotateClientSecretWithOverlap, setClientDisabled } from '../iam/client-admin.ts';
import { setUserDisabled } from '../iam/user-admin.ts';
import { OPERATOR } from '../iam/audit.ts';
import { EVERY_ORGANISATION } from '../iam/organisation-scope.ts';
import { rotateSigningKey, withdrawSigningKey } from '../iam/keys.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import type { ClientCredentials } from '../iam/provisioning-schemas.ts';
import type { ClientState, RotatedSigningKey, UserState, WithdrawnSigningKey } from './schemas.ts';

/**
 * A new key must be seen by every verifier before it signs: instances publish it at once (the JWKS is
 * read from the table) and integrators may cache the JWKS for its max-age of 60 s, so publish 120 s ahead.
 */
export const DEFAULT_ACTIVATE_IN_SECONDS = 120;

/**
 * Without an overlap the rotation is immediate and revokes every grant (a leaked secret); with one
 * it is planned: the old secret keeps working until `previousSecretExpiresAt` and nothing is revoked.
 */
export async function newClientSecret(db: Db, clientId: string, overlapSeconds?: number): Promise<ClientCredentials> {
  if (overlapSeconds !== undefined) return rotateClientSecretWithOverlap(db, { clientId, overlapSeconds }, OPERATOR);
  const { clientSecret } = await rotateClientSecret(db, clientId);
  return { clientId, clientSecret };
}

export async function switchClient(db: Db, clientId: string, disabled: boolean): Promise<ClientState> {
  await setClientDisabled(db, EVERY_ORGANISATION, clientId, disabled, OPERATOR);
  return { clientId, disabled };
}

export async function switchUser(db: Db, userId: string, disabled: boolean): Promise<UserState> {
  await setUserDisabled(db, EVERY_ORGANISATION, userId, disabled, OPERATOR);
  return { userId, disabled };
}

type TokenLifetimes = Pick<Config, 'refreshTokenTtl' | 'accessTokenTtl' | 'clockSkewSeconds'>;

/** How long a retired key stays published: until the last token it signed (a refresh token, the longest-lived) has expired. */
function retainSeconds(config: TokenLifetimes): number {
  return config.refreshTokenTtl + config.accessTokenTtl + config.clockSkewSeconds;
}

/** The new key is published `activateInSeconds` before it signs; the old one is retained (above). */
export async function newSigningKey(db: Db, box: SecretBox, config: TokenLifetimes, activateInSeconds = DEFAULT_ACTIVATE_IN_SECONDS): Promise<RotatedSigningKey> {
  const { kid, activatesAt } = await rotateSigningKey(db, box, { activateInSeconds, retainSeconds: retainSeconds(config) });
  return { kid, activatesAt: new Date(activatesAt).toISOString() };
}

/** A leaked key leaves the JWKS and stops verifying now; a replacement signs at once when it was signing. */
export async function withdrawnSigningKey(db: Db, box: SecretBox, config: TokenLifetimes, kid: string): Promise<WithdrawnSigningKey> {
  const { withdrawnAt, replacement } = await withdrawSigningKey(db, box, kid, { retainSeconds: retainSeconds(config) });
  return {
    kid,
    withdrawnAt: new Date(withdrawnAt).toISOString(),
    replacement: replacement && { kid: replacement.kid, activatesAt: new Date(replacement.activatesAt).toISOString() },
  };
}
