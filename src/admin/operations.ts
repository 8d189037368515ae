// The operator actions whose results differ from the domain functions' return values: the CLI and
// the operator API both call these, so `wfs … --json` and the HTTP responses cannot drift apart.
// (Actions whose domain function already returns the documented shape are called directly.)
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import { rotateClientSecret, setClientDisabled, setUserDisabled } from '../iam/provisioning.ts';
import { rotateSigningKey } from '../iam/keys.ts';
import type { ClientCredentials, ClientState, RotatedSigningKey, UserState } from './schemas.ts';

/**
 * A new key must be seen by every verifier before it signs: instances reload the key table every
 * 30 s and integrators may cache the JWKS for its max-age of 60 s, so publish 120 s ahead.
 */
export const DEFAULT_ACTIVATE_IN_SECONDS = 120;

export async function newClientSecret(db: Db, clientId: string): Promise<ClientCredentials> {
  const { clientSecret } = await rotateClientSecret(db, clientId);
  return { clientId, clientSecret };
}

export async function switchClient(db: Db, clientId: string, disabled: boolean): Promise<ClientState> {
  await setClientDisabled(db, clientId, disabled);
  return { clientId, disabled };
}

export async function switchUser(db: Db, userId: string, disabled: boolean): Promise<UserState> {
  await setUserDisabled(db, userId, disabled);
  return { userId, disabled };
}

/**
 * The new key is published `activateInSeconds` before it signs, and the old one stays published
 * until the last token it signed (a refresh token, the longest-lived) has expired.
 */
export async function newSigningKey(db: Db, config: Config, activateInSeconds = DEFAULT_ACTIVATE_IN_SECONDS): Promise<RotatedSigningKey> {
  const retainSeconds = config.refreshTokenTtl + config.accessTokenTtl + config.clockSkewSeconds;
  const { kid, activatesAt } = await rotateSigningKey(db, { activateInSeconds, retainSeconds });
  return { kid, activatesAt: new Date(activatesAt).toISOString() };
}
