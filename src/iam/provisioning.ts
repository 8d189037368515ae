// Creating what a customer organisation runs on (contract: operator side, customer console): organisations and companies (the
// operator), API Clients and API Users (the operator, or a console user within its organisation),
// and the grants the operator switches. Used by the `wfs` CLI, the operator API and the console.
import type { Db } from '../platform/db/database.ts';
import { insertCompany } from '../tenancy/companies.ts';
import { insertOrganisation, requireOrganisation } from '../tenancy/organisations.ts';
import { ProblemError, badRequest } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { checkedInput, rejectIf, schemaErrors } from '../platform/validation.ts';
import { generateClientSecret, generateUserSecret, hashUserSecret } from './secrets.ts';
import { DEFAULT_AUDIENCE } from './tokens.ts';
import { redirectUriProblem } from './clients.ts';
import { OPERATOR, type Actor } from './audit.ts';
import { EVERY_ORGANISATION, auditChange, requireClient, requireCompany, type Reach } from './organisation-scope.ts';
import {
  NewApiClient,
  NewApiUser,
  NewCompany,
  NewOrganisation,
  RedirectUris,
  type ClientCredentials,
  type CreatedApiUser,
  type CreatedCompany,
  type CreatedOrganisation,
} from './provisioning-schemas.ts';

/** Grants the operator switches per client; `authorization_code` is always on. `sso` routes logins to the organisation's identity provider (§8). */
export const OPTIONAL_GRANTS = ['client_credentials', 'refresh_token', 'sso'] as const;
export type OptionalGrant = (typeof OPTIONAL_GRANTS)[number];

/** The operator's: audited in the new organisation's own log, as every operator change (CONTRACT §6). */
export async function createOrganisation(db: Db, input: NewOrganisation, now = Date.now()): Promise<CreatedOrganisation> {
  checkedInput(NewOrganisation, input);
  const organisationId = newId('org');
  const name = input.name.trim();
  await db.transaction().execute(async (trx) => {
    await insertOrganisation(trx, { id: organisationId, name, created_at: now });
    await auditChange(trx, OPERATOR, 'organisation_created', { organisationId }, { name }, now);
  });
  return { organisationId };
}

/**
 * The zone as the company keeps it (the schema has checked that it names one). Names match whatever their
 * case, so a name that only differs from Intl's (ICU's) spelling by case takes that spelling
 * (`europe/amsterdam` → `Europe/Amsterdam`, `utc` → `UTC`). A link or an older name stays as typed
 * (`Asia/Kolkata`, `Etc/UTC`, `US/Pacific`): ICU would answer `Asia/Calcutta` for the first, a
 * surprise to the operator who typed the current IANA name. A link typed in lower case takes ICU's
 * spelling (`asia/kolkata` → `Asia/Calcutta`).
 */
function companyTimeZone(zone: string): string {
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  if (canonical.toLowerCase() === zone.toLowerCase()) return canonical;
  // A link typed in lower case (`asia/kolkata`) cannot be re-cased from here: ICU's spelling is
  // at least a name that case-sensitive zone libraries (Java, Python) accept.
  return zone.split('/').every((part) => /^[A-Z]/.test(part)) ? zone : canonical;
}

/** The operator's, audited in the organisation's log like the organisation's creation. */
export async function createCompany(db: Db, input: NewCompany, now = Date.now()): Promise<CreatedCompany> {
  checkedInput(NewCompany, input);
  const timezone = companyTimeZone(input.timezone);
  const locale = input.locale ?? 'en-GB';
  await requireOrganisation(db, input.organisationId);
  const companyId = newId('cmp');
  const name = input.name.trim();
  await db.transaction().execute(async (trx) => {
    await insertCompany(trx, { id: companyId, organisation_id: input.organisationId, name, timezone, currency: input.currency, locale, created_at: now, updated_at: now });
    await auditChange(trx, OPERATOR, 'company_created', { organisationId: input.organisationId }, { companyId, name }, now);
  });
  return { companyId };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * What is wrong with a redirect URI, or undefined. A console user registers https URIs, or http on a
 * loopback host (native apps, RFC 8252 §7.3); the operator may also register plain http (a demo or a
 * private deployment behind its own TLS).
 */
export function validateRedirectUri(uri: string, actor: Actor = OPERATOR): string | undefined {
  const malformed = redirectUriProblem(uri);
  if (malformed) return malformed;
  const url = new URL(uri);
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return actor.kind === 'operator' ? 'must use https (or http)' : 'must use https (or http on a loopback host)';
  if (actor.kind !== 'operator' && !LOOPBACK_HOSTS.has(url.hostname)) return 'must use https; plain http only on a loopback host (127.0.0.1, [::1], localhost)';
  return undefined;
}

/** The redirect URIs as stored, or a 400 naming each bad one (at `/redirectUris/<i>`). */
export function checkedRedirectUris(uris: string[], actor: Actor): string[] {
  const errors = schemaErrors(RedirectUris, uris, '/redirectUris');
  uris.forEach((uri, i) => {
    const problem = errors.some((e) => e.path === `/redirectUris/${i}`) ? undefined : validateRedirectUri(uri, actor);
    if (problem) errors.push({ path: `/redirectUris/${i}`, message: problem });
  });
  rejectIf(errors);
  return [...new Set(uris)];
}

/** A new API Client of a company within `reach`; its secret is returned only here. */
export async function createClient(db: Db, reach: Reach, input: NewApiClient, actor: Actor, now = Date.now()): Promise<ClientCredentials> {
  checkedInput(NewApiClient, input);
  const redirectUris = checkedRedirectUris(input.redirectUris, actor);
  const company = await requireCompany(db, reach, input.companyId);
  const clientId = newId('cli');
  const { secret, hash } = generateClientSecret();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('api_clients')
      .values({
        id: clientId,
        company_id: company.id,
        name: input.name.trim(),
        secret_hash: hash,
        redirect_uris: JSON.stringify(redirectUris),
        grants: JSON.stringify(['authorization_code']),
        audiences: JSON.stringify([DEFAULT_AUDIENCE]),
        disabled: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await auditChange(trx, actor, 'client_created', { organisationId: company.organisation_id, clientId }, undefined, now);
  });
  return { clientId, clientSecret: secret };
}

/** The operator's `create-api-client`: any company. */
export function createApiClient(db: Db, input: NewApiClient, now = Date.now()): Promise<ClientCredentials> {
  return createClient(db, EVERY_ORGANISATION, input, OPERATOR, now);
}

/** A new API User of a client within `reach`; its generated secret is returned only here. */
export async function createUser(db: Db, reach: Reach, input: NewApiUser, actor: Actor, now = Date.now()): Promise<CreatedApiUser> {
  const email = checkedInput(NewApiUser, input).email.trim().toLowerCase();
  const client = await requireClient(db, reach, input.clientId);
  const taken = await db.selectFrom('api_users').select('id').where('client_id', '=', client.id).where('email', '=', email).executeTakeFirst();
  if (taken) throw new ProblemError({ code: 'email_taken', detail: `${email} is already an API user of this client.` });
  const userId = newId('usr');
  const secret = generateUserSecret();
  const secretHash = await hashUserSecret(secret);
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('api_users').values({ id: userId, client_id: client.id, email, secret_hash: secretHash, disabled: 0, created_at: now }).execute();
    await auditChange(trx, actor, 'user_created', { organisationId: client.organisation_id, clientId: client.id, userId }, undefined, now);
  });
  return { userId, email, secret };
}

/** The operator's `create-api-user`: any client. */
export function createApiUser(db: Db, input: NewApiUser, now = Date.now()): Promise<CreatedApiUser> {
  return createUser(db, EVERY_ORGANISATION, input, OPERATOR, now);
}

export function checkedGrant(grant: string): OptionalGrant {
  if (!(OPTIONAL_GRANTS as readonly string[]).includes(grant)) {
    throw badRequest('validation_failed', `grant must be one of ${OPTIONAL_GRANTS.join(', ')}`, [{ path: '/grant', message: `must be one of ${OPTIONAL_GRANTS.join(', ')}` }]);
  }
  return grant as OptionalGrant;
}

/** Switches a grant of a client: the operator's decision (a console user asks for it, see grant-requests.ts). */
export async function setGrantEnabled(db: Db, clientId: string, grant: string, enabled: boolean, actor: Actor = OPERATOR, context?: Record<string, unknown>): Promise<{ clientId: string; grants: string[] }> {
  checkedGrant(grant);
  const client = await requireClient(db, EVERY_ORGANISATION, clientId);
  const current = new Set(JSON.parse(client.grants) as string[]);
  if (enabled) current.add(grant);
  else current.delete(grant);
  const grants = ['authorization_code', ...OPTIONAL_GRANTS.filter((g) => current.has(g))];
  await db.updateTable('api_clients').set({ grants: JSON.stringify(grants), updated_at: Date.now() }).where('id', '=', clientId).execute();
  await auditChange(db, actor, `grant_${enabled ? 'enabled' : 'disabled'}:${grant}`, { organisationId: client.organisation_id, clientId }, context);
  return { clientId, grants };
}
