// The demo organisation that `npm start` creates on an empty database and `wfs seed-demo` creates on
// demand: one company with realistic data, one API Client whose redirect URI is the service's own
// /demo/callback page, and its API User.
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import { anyOrganisationExists } from '../tenancy/organisations.ts';
import { createApiClient, createApiUser, createCompany, createOrganisation } from '../iam/provisioning.ts';
import { importCompanyData } from '../company/import.ts';
import { today } from '../platform/period.ts';
import { demoCompanyDocument } from './company-data.ts';
import { inviteConsoleUser } from '../console/people.ts';
import { referenceRedirectUri } from '../platform/reference-page.ts';

export interface DemoCredentials {
  organisationId: string;
  companyId: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  userEmail: string;
  userSecret: string;
}

export interface DemoOptions {
  /** Same seed, same day: same data. */
  seed?: number;
  now?: number;
  /** The day (YYYY-MM-DD, in the demo's zone) the data is dated from; default today there. */
  date?: string;
}

const DEMO_TIMEZONE = 'Europe/Amsterdam';

export async function seedDemo(db: Db, config: Config, options: DemoOptions = {}): Promise<DemoCredentials> {
  const now = options.now ?? Date.now();
  const { organisationId } = await createOrganisation(db, { name: 'Demo Hospitality Group' });
  const { companyId } = await createCompany(db, { organisationId, name: 'Café de Demo', timezone: DEMO_TIMEZONE, currency: 'EUR', locale: 'nl-NL' });
  // The company data goes in like any customer's: one import document, checked and applied whole.
  await importCompanyData(db, companyId, demoCompanyDocument(options.date ?? today(DEMO_TIMEZONE, now), options.seed), now);
  const redirectUri = `${config.baseUrl}/demo/callback`;
  // The loopback URI lets `wfs login` run its own listener on any port (RFC 8252 §7.3).
  // The reference page (/docs) runs the authorization-code flow with itself as redirect URI: at
  // BASE_URL, and opened as 127.0.0.1 too (BASE_URL's default host is localhost; any port matches).
  const redirectUris = [redirectUri, 'http://127.0.0.1/callback', referenceRedirectUri(config.baseUrl), referenceRedirectUri('http://127.0.0.1')];
  const { clientId, clientSecret } = await createApiClient(db, { companyId, name: 'Demo integration', redirectUris });
  const user = await createApiUser(db, { clientId, email: `api-user+${companyId.slice(-6).toLowerCase()}@demo.example` });
  return { organisationId, companyId, clientId, clientSecret, redirectUri, userEmail: user.email, userSecret: user.secret };
}

/**
 * `npm start` on an empty database seeds the demo — once, even when several instances start at the
 * same moment: the first to record the claim seeds, the others see the claim and skip.
 */
export async function seedDemoOnFirstStart(db: Db, config: Config): Promise<DemoCredentials | undefined> {
  if (await anyOrganisationExists(db)) return undefined;
  const claim = await db
    .insertInto('app_secrets')
    .values({ name: 'demo_seed_claimed', value: config.baseUrl, created_at: Date.now() })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .executeTakeFirst();
  return claim ? seedDemo(db, config) : undefined;
}

export interface DemoConsoleInvitation {
  email: string;
  inviteUrl: string;
  expiresAt: string;
}

/** `npm start` also invites an admin to the demo organisation's console (CONTRACT §6). */
export async function inviteDemoConsoleAdmin(db: Db, config: Config, demo: DemoCredentials): Promise<DemoConsoleInvitation> {
  const email = `console-admin+${demo.companyId.slice(-6).toLowerCase()}@demo.example`;
  return inviteConsoleUser(db, { organisationId: demo.organisationId, email, role: 'admin', invitedBy: null }, config.authUrl, Date.now());
}

/**
 * Start-up output framed by rules above and below, after the log lines: no side borders, so the
 * addresses and commands inside copy and paste as they are.
 */
export function framed(lines: string[]): string {
  const rule = '═'.repeat(Math.min(100, Math.max(...lines.map((line) => line.length))));
  return ['', rule, ...lines, rule, ''].join('\n');
}

/** What `npm start` prints so a newcomer can walk the whole flow with a browser and curl. */
export function demoInstructions(config: Config, demo: DemoCredentials, invitation?: DemoConsoleInvitation): string {
  const consoleLines = invitation
    ? [
      '5. The customer console, where the organisation creates its own clients and users: open the',
      `   invitation (it works once, until ${invitation.expiresAt}), choose a password, set up an authenticator app:`,
      `   Console invitation: ${invitation.inviteUrl}`,
      `   then sign in at ${config.authUrl}/console/login as ${invitation.email}`,
    ]
    : [];
  const authorize = new URL(`${config.authUrl}/oauth/authorize`);
  authorize.search = new URLSearchParams({ response_type: 'code', scope: 'all', client_id: demo.clientId, state: 'demo-state', redirect_uri: demo.redirectUri }).toString();
  const reference = new URL(referenceRedirectUri(config.baseUrl));
  reference.search = new URLSearchParams({ client_id: demo.clientId }).toString();
  return framed([
    'Demo organisation created. Keep these; the secrets are shown only once.',
    `  API Client id:      ${demo.clientId}`,
    `  API Client secret:  ${demo.clientSecret}`,
    `  API User email:     ${demo.userEmail}`,
    `  API User secret:    ${demo.userSecret}`,
    '',
    '1. Open this address in a browser and log in with the API User email and secret:',
    `   ${authorize.toString()}`,
    // The secret is printed once, above; the command names its place, as the callback page does.
    '2. The /demo/callback page shows the code and the exact command that exchanges it, like',
    '   (replace <CLIENT_SECRET> with the API Client secret above):',
    `   curl -s ${config.issuer}/oauth/token -H 'Content-Type: application/json' \\`,
    `     -d '{"grant_type":"authorization_code","code":"<CODE>","redirect_uri":"${demo.redirectUri}","client_id":"${demo.clientId}","client_secret":"<CLIENT_SECRET>","audience":"service-api"}'`,
    '3. Call the API with the id_token:',
    `   curl -s ${config.baseUrl}/api/v1/company/configuration -H "Authorization: Bearer <ID_TOKEN>"`,
    '4. When it expires, renew it with the refresh_token:',
    `   curl -s -X POST ${config.issuer}/idToken -H "Authorization: Bearer <REFRESH_TOKEN>"`,
    ...(consoleLines.length ? ['', ...consoleLines] : []),
    '',
    'Or call the API from the reference page: open the address below; under Authentication click the',
    'gear beside "Authorize via oauth", enter the API Client secret above, Authorize, and log in as the',
    'API User in the window that opens; then "Test Request" on any operation sends it with the token:',
    `   ${reference.toString()}`,
    '',
    `Reference page: ${config.baseUrl}/docs    Console: ${config.authUrl}/console`,
  ]);
}
