// The SecretBox that seals SSO client secrets and pending flows: SECRETS_KEY when set; otherwise a key
// generated once and kept in the database (app_secrets), which any database dump exposes — so that
// case is announced as fit for development only.
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import { sharedSecret } from '../platform/db/shared-secret.ts';
import { SecretBox } from '../platform/secret-box.ts';

export const DEVELOPMENT_KEY_WARNING =
  'SECRETS_KEY is unset: SSO client secrets are sealed with a key generated and kept in the database. This is for development only; set SECRETS_KEY (openssl rand -base64 32) in production (see docs/sso.md).';

export async function loadSecretBox(db: Db, config: Config, warn: (message: string) => void): Promise<SecretBox> {
  if (config.secretsKey) return new SecretBox(config.secretsKey, [...config.secretsKeyPrevious]);
  warn(DEVELOPMENT_KEY_WARNING);
  return new SecretBox(Buffer.from(await sharedSecret(db, 'secrets_key'), 'base64url'), [...config.secretsKeyPrevious]);
}
