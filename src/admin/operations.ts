// The operator actions whose results differ from the domain functions' return values: the CLI and
// the operator API both call these, so `wfs … --json` and the HTTP responses cannot drift apart.
// (Actions whose domain function already returns the documented shape are called directly.)
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import { rotateClientSecret, rotateClientSecretWithOverlap, setClientDisabled } from '../iam/client-admin.ts';
import { setUserDisabled } from '../iam/user-admin.ts';
import { OPERATOR } from '../iam/audit.ts';
import { EVERY_ORGANISATION } from '../iam/organisation-scope.ts';
import { rotateSigningKey } from '../iam/keys.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import type { ClientCredentials } from '../iam/provisioning-schemas.ts';
import type { ClientState, RotatedSigningKey, UserState } from './schemas.ts';

/**
 * A new key must be seen by every verifier before it signs: instances reload the key table every
 * 30 s and integrators may cache the JWKS for its max-age of 60 s, so publish 120 s ahead.
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

/**
 * The new key is published `activateInSeconds` before it signs, and the old one stays published
 * until the last token it signed (a refresh token, the longest-lived) has expired.
 */
export async function newSigningKey(
  db: Db,
  box: SecretBox,
  config: Pick<Config, 'refreshTokenTtl' | 'accessTokenTtl' | 'clockSkewSeconds'>,
  activateInSeconds = DEFAULT_ACTIVATE_IN_SECONDS,
): Promise<RotatedSigningKey> {
  const retainSeconds = config.refreshTokenTtl + config.accessTokenTtl + config.clockSkewSeconds;
  const { kid, activatesAt } = await rotateSigningKey(db, box, { activateInSeconds, retainSeconds });
  return { kid, activatesAt: new Date(activatesAt).toISOString() };
}
