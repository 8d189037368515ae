// The SecretBox that seals token-signing keys, SSO client secrets and pending flows (src/platform/sealed-secrets.ts):
// SECRETS_KEY when set; otherwise a key generated once and kept in the database, which any database
// dump exposes — so that case is announced as fit for development only.
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import { resealStale, secretBox, type SecretBox } from '../platform/sealed-secrets.ts';

export const DEVELOPMENT_KEY_WARNING =
  'SECRETS_KEY is unset: token-signing keys, SSO client secrets, webhook secrets and console TOTP secrets are sealed with a key generated and kept in the database. This is for development only; set SECRETS_KEY (openssl rand -base64 32) in production (see docs/sso.md).';

export function loadSecretBox(db: Db, config: Pick<Config, 'secretsKey' | 'secretsKeyPrevious'>, warn: (message: string) => void): Promise<SecretBox> {
  return secretBox(db, config, () => warn(DEVELOPMENT_KEY_WARNING));
}

/** Seals again with the current key every provider's client secret sealed with an older one. */
export async function resealProviderSecrets(db: Db, box: SecretBox): Promise<number> {
  const providers = await db.selectFrom('sso_providers').select(['id', 'client_secret_encrypted']).execute();
  return resealStale(box, providers, {
    sealed: (provider) => provider.client_secret_encrypted,
    context: (provider) => provider.id,
    store: (provider, value) =>
      db.updateTable('sso_providers').set({ client_secret_encrypted: value }).where('id', '=', provider.id).where('client_secret_encrypted', '=', provider.client_secret_encrypted).execute(),
  });
}
