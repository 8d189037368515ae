// Single sign-on commands (CONTRACT §8): an organisation's OpenID providers and whether it enforces
// SSO. Each calls the same domain function as the operator API.
import { Option, type Command } from 'commander';
import { addSsoProvider, organisationSso, removeSsoProvider, setSsoEnforced, updateSsoProvider, type ProviderSettings } from '../sso/providers.ts';
import { loadSecretBox } from '../sso/secrets-key.ts';
import { operatorAction } from './output.ts';
import type { CommandContext } from './database.ts';

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

async function providerSettings({ db, config, warn }: CommandContext): Promise<ProviderSettings> {
  const box = await loadSecretBox(db, config, warn);
  return { box, allowInsecure: config.ssoAllowInsecure };
}

export function ssoCommands(program: Command): void {
  program
    .command('add-sso-provider')
    .description('add an OpenID provider to an organisation; its API Users with --domain emails can sign in through it (the client secret is stored encrypted and never shown again)')
    .requiredOption('--org <organisationId>', 'organisation id')
    .requiredOption('--issuer <url>', 'issuer URL, exactly as its discovery document names it (https)')
    .requiredOption('--client-id <id>', 'the client id the provider issued to this service')
    .requiredOption('--client-secret <secret>', 'the client secret the provider issued to this service')
    .requiredOption('--domain <domain>', 'an email domain the provider owns (repeat for several)', collect, [])
    .action(operatorAction<{ org: string; issuer: string; clientId: string; clientSecret: string; domain: string[] }>(async (context, o) => {
      const result = await addSsoProvider(context.db, await providerSettings(context), { organisationId: o.org, issuer: o.issuer, clientId: o.clientId, clientSecret: o.clientSecret, domains: o.domain });
      return { json: result, summary: `Added SSO provider ${result.providerId} (${o.issuer}) to organisation ${o.org}. Register ${context.config.authUrl}/oauth/sso/callback as its redirect URI.` };
    }));

  program
    .command('sso-providers')
    .description('list the SSO providers of an organisation and whether it enforces SSO (never the client secrets)')
    .requiredOption('--org <organisationId>', 'organisation id')
    .action(operatorAction<{ org: string }>(async ({ db }, o) => {
      const result = await organisationSso(db, o.org);
      const lines = result.providers.map((p) => `  ${p.providerId}  ${p.issuer}  client ${p.clientId}  domains ${p.domains.join(', ')}`);
      return { json: result, summary: [`Organisation ${o.org}: ${result.providers.length} SSO provider(s); SSO ${result.enforceSso ? 'enforced' : 'not enforced'}.`, ...lines].join('\n') };
    }));

  program
    .command('update-sso-provider')
    .description('change an SSO provider: issuer, client id, client secret or its email domains (--domain replaces the list)')
    .requiredOption('--provider <providerId>', 'SSO provider id')
    .option('--issuer <url>', 'new issuer URL')
    .option('--client-id <id>', 'new client id')
    .option('--client-secret <secret>', 'new client secret')
    .option('--domain <domain>', 'email domain (repeat; replaces the whole list)', collect, undefined)
    .action(operatorAction<{ provider: string; issuer?: string; clientId?: string; clientSecret?: string; domain?: string[] }>(async (context, o) => {
      const result = await updateSsoProvider(context.db, await providerSettings(context), o.provider, { issuer: o.issuer, clientId: o.clientId, clientSecret: o.clientSecret, domains: o.domain });
      return { json: result, summary: `Updated SSO provider ${o.provider}.` };
    }));

  program
    .command('remove-sso-provider')
    .description('remove an SSO provider: revokes every grant made through it')
    .requiredOption('--provider <providerId>', 'SSO provider id')
    .action(operatorAction<{ provider: string }>(async ({ db }, o) => {
      const result = await removeSsoProvider(db, o.provider);
      return { json: result, summary: `Removed SSO provider ${o.provider}; ${result.revokedGrants} grant(s) made through it are revoked.` };
    }));

  program
    .command('set-sso-enforcement')
    .description('whether the API Users of an organisation must sign in through its SSO providers (on: their secrets no longer sign in, and the grants of earlier secret logins are revoked)')
    .requiredOption('--org <organisationId>', 'organisation id')
    .addOption(new Option('--enforce <state>', 'on or off').choices(['on', 'off']).makeOptionMandatory())
    .action(operatorAction<{ org: string; enforce: string }>(async ({ db }, o) => {
      const result = await setSsoEnforced(db, o.org, o.enforce === 'on');
      return { json: result, summary: `Organisation ${o.org}: SSO ${result.enforceSso ? 'enforced' : 'not enforced'}.` };
    }));
}
