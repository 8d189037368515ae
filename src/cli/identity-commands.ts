// Identity commands (contract: operator side): organisations, companies, API Clients and Users, grants, secrets
// and signing keys. Each one calls the same domain function as the operator API.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { OPTIONAL_GRANTS, createApiClient, createApiUser, createCompany, createOrganisation, setGrantEnabled } from '../iam/provisioning.ts';
import { DEFAULT_ACTIVATE_IN_SECONDS, newClientSecret, newSigningKey, switchClient, switchUser, withdrawnSigningKey } from '../admin/operations.ts';
import { MAX_OVERLAP_SECONDS, endSecretOverlap } from '../iam/client-admin.ts';
import { OPERATOR } from '../iam/audit.ts';
import { loadSecretBox } from '../sso/secrets-key.ts';
import { operatorAction } from './output.ts';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function seconds(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number of seconds.');
  return Number(value);
}

/** What disable-api-… / enable-api-… act on, and what disabling stops besides its grants. */
const SWITCHABLE = [
  { noun: 'client', label: 'API Client', effect: 'logins and token requests fail', apply: switchClient },
  { noun: 'user', label: 'API User', effect: 'logins fail', apply: switchUser },
] as const;

const grantOption = () => new Option('--grant <grant>', 'grant type to switch').choices(OPTIONAL_GRANTS).makeOptionMandatory();

export function identityCommands(program: Command): void {
  program
    .command('create-organisation')
    .description('create a customer organisation')
    .requiredOption('--name <name>', 'display name')
    .action(operatorAction<{ name: string }>(async ({ db }, { name }) => {
      const result = await createOrganisation(db, { name });
      return { json: result, summary: `Created organisation ${result.organisationId}.` };
    }));

  program
    .command('create-company')
    .description('create a company in an organisation')
    .requiredOption('--org <organisationId>', 'organisation id')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--timezone <zone>', 'IANA time zone, e.g. Europe/Amsterdam')
    .requiredOption('--currency <code>', 'ISO 4217 code, e.g. EUR')
    .option('--locale <tag>', 'BCP 47 tag (default en-GB)')
    .action(operatorAction<{ org: string; name: string; timezone: string; currency: string; locale?: string }>(async ({ db }, options) => {
      const result = await createCompany(db, { organisationId: options.org, name: options.name, timezone: options.timezone, currency: options.currency, ...(options.locale ? { locale: options.locale } : {}) });
      return { json: result, summary: `Created company ${result.companyId} in organisation ${options.org}.` };
    }));

  program
    .command('create-api-client')
    .description('create an API Client for a company (prints its secret once)')
    .requiredOption('--company <companyId>', 'company id')
    .requiredOption('--name <name>', 'display name')
    .option('--redirect-uri <uri>', 'allowed redirect URI (repeat for several)', collect, [])
    .action(operatorAction<{ company: string; name: string; redirectUri: string[] }>(async ({ db }, options) => {
      const result = await createApiClient(db, { companyId: options.company, name: options.name, redirectUris: options.redirectUri });
      return { json: result, summary: `Created API client ${result.clientId} for company ${options.company}.`, secrets: { 'Client secret': result.clientSecret } };
    }));

  program
    .command('create-api-user')
    .description('create the API User of a client (generates its secret and prints it once)')
    .requiredOption('--client <clientId>', 'API Client id')
    .requiredOption('--email <email>', 'login email')
    .action(operatorAction<{ client: string; email: string }>(async ({ db }, options) => {
      const result = await createApiUser(db, { clientId: options.client, email: options.email });
      return { json: result, summary: `Created API user ${result.userId} (${result.email}) for client ${options.client}.`, secrets: { 'User secret': result.secret } };
    }));

  for (const [name, enabled] of [['enable-grant', true], ['disable-grant', false]] as const) {
    program
      .command(name)
      .description(`${enabled ? 'enable' : 'disable'} client_credentials, refresh_token or sso for a client${enabled ? '' : ' (revokes nothing)'}`)
      .requiredOption('--client <clientId>', 'API Client id')
      .addOption(grantOption())
      .action(operatorAction<{ client: string; grant: string }>(async ({ db }, options) => {
        const result = await setGrantEnabled(db, options.client, options.grant, enabled);
        return { json: result, summary: `Client ${result.clientId} grants: ${result.grants.join(', ')}.` };
      }));
  }

  program
    .command('rotate-client-secret')
    .description('issue a new client secret; at once every grant issued under the old one is revoked, or with --overlap the old secret keeps working that long and nothing is revoked')
    .requiredOption('--client <clientId>', 'API Client id')
    .option('--overlap <seconds>', `planned rotation: seconds the old secret keeps working (1 to ${MAX_OVERLAP_SECONDS}, 7 days)`, seconds)
    .action(operatorAction<{ client: string; overlap?: number }>(async ({ db }, options) => {
      const result = await newClientSecret(db, options.client, options.overlap);
      const summary = result.previousSecretExpiresAt
        ? `Rotated the secret of client ${result.clientId}; the previous secret works until ${result.previousSecretExpiresAt} (end it earlier with end-secret-overlap).`
        : `Rotated the secret of client ${result.clientId}; its earlier tokens are revoked.`;
      return { json: result, summary, secrets: { 'Client secret': result.clientSecret } };
    }));

  program
    .command('end-secret-overlap')
    .description('end a rotation with overlap early: the previous client secret stops working now')
    .requiredOption('--client <clientId>', 'API Client id')
    .action(operatorAction<{ client: string }>(async ({ db }, options) => {
      const result = await endSecretOverlap(db, options.client, OPERATOR);
      return { json: result, summary: `Client ${result.clientId} now accepts only its current secret.` };
    }));

  for (const { noun, label, effect, apply } of SWITCHABLE) {
    for (const disabled of [true, false]) {
      program
        .command(`${disabled ? 'disable' : 'enable'}-api-${noun}`)
        .description(disabled ? `disable an ${label}: revokes its grants and pending codes; ${effect}` : `re-enable an ${label} (revoked grants stay revoked)`)
        .requiredOption(`--${noun} <${noun}Id>`, `${label} id`)
        .action(operatorAction<Record<string, string>>(async ({ db }, options) => {
          const id = String(options[noun]);
          const result = await apply(db, id, disabled);
          return { json: result, summary: `API ${noun} ${id} is ${disabled ? 'disabled; its tokens are revoked' : 'enabled'}.` };
        }));
    }
  }

  program
    .command('rotate-signing-key')
    .description('publish a new signing key now; it starts signing after --activate-in seconds')
    .option('--activate-in <seconds>', 'seconds before the new key signs (at least the JWKS cache lifetime)', seconds, DEFAULT_ACTIVATE_IN_SECONDS)
    .action(operatorAction<{ activateIn: number }>(async ({ db, config, warn }, options) => {
      const result = await newSigningKey(db, await loadSecretBox(db, config, warn), config, options.activateIn);
      return { json: result, summary: `New signing key ${result.kid} is published and signs from ${result.activatesAt}; older keys stay published until their tokens expire.` };
    }));

  program
    .command('withdraw-signing-key')
    .description('after a key leak: remove a key from the JWKS now, so every token it signed is refused; a new key signs at once if it was signing')
    .requiredOption('--kid <kid>', 'kid of the leaked key (the JWKS lists them; the header of any token it signed names it)')
    .action(operatorAction<{ kid: string }>(async ({ db, config, warn }, options) => {
      const result = await withdrawnSigningKey(db, await loadSecretBox(db, config, warn), config, options.kid);
      const signing = result.replacement ? `New signing key ${result.replacement.kid} signs from now.` : 'The key signing now is unchanged.';
      return { json: result, summary: `Signing key ${result.kid} is withdrawn: it is no longer published, and every instance refuses the tokens it signed within its key-ring reload (KEY_REFRESH_MS, 1 s by default; their holders sign in again). ${signing}` };
    }));
}
