// Sealed secrets (token-signing keys, webhook signing secrets, SSO client secrets, console TOTP secrets) after a rotation
// of SECRETS_KEY: seal every stored one again with the new key, so the old key can be retired.
import type { Command } from 'commander';
import { resealTotpSecrets } from '../console/totp-secrets.ts';
import { resealSigningKeys } from '../iam/keys.ts';
import { loadSecretBox, resealProviderSecrets } from '../sso/secrets-key.ts';
import { resealEndpointSecrets } from '../webhooks/endpoints.ts';
import { operatorAction } from './output.ts';

export function secretsCommands(program: Command): void {
  program
    .command('reseal-secrets')
    .description('seal every stored secret again with SECRETS_KEY (run during a rotation, with the old key in SECRETS_KEY_PREVIOUS; then remove SECRETS_KEY_PREVIOUS)')
    .action(operatorAction(async ({ db, config, warn }) => {
      const box = await loadSecretBox(db, config, warn);
      const resealed = {
        signingKeys: await resealSigningKeys(db, box),
        webhookSecrets: await resealEndpointSecrets(db, box),
        ssoClientSecrets: await resealProviderSecrets(db, box),
        consoleTotpSecrets: await resealTotpSecrets(db, box),
      };
      const total = resealed.signingKeys + resealed.webhookSecrets + resealed.ssoClientSecrets + resealed.consoleTotpSecrets;
      return {
        json: { resealed },
        summary:
          total === 0
            ? 'Every stored secret is already sealed with SECRETS_KEY; nothing to do.'
            : `Sealed again with SECRETS_KEY: ${resealed.signingKeys} signing key(s), ${resealed.webhookSecrets} webhook secret(s), ${resealed.ssoClientSecrets} SSO client secret(s), ${resealed.consoleTotpSecrets} console TOTP secret(s). SECRETS_KEY_PREVIOUS can now be removed.`,
      };
    }));
}
