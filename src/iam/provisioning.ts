// Creating what a customer organisation runs on (CONTRACT §5, §6): organisations and companies (the
// operator), API Clients and API Users (the operator, or a console user within its organisation),
// and the grants the operator switches. Used by the `wfs` CLI, the operator API and the console.
import { IANAZone } from 'luxon';
import type { Db } from '../platform/db/database.ts';
import { ProblemError, badRequest, notFound, type FieldError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { generateClientSecret, generateUserSecret, hashUserSecret } from './secrets.ts';
import { DEFAULT_AUDIENCE } from './tokens.ts';
import { redirectUriProblem } from './clients.ts';
import { OPERATOR, type Actor } from './audit.ts';
import { EVERY_ORGANISATION, auditChange, requireClient, requireCompany, type Reach } from './organisation-scope.ts';

/** Grants the operator switches per client; `authorization_code` is always on. `sso` routes logins to the organisation's identity provider (§8). */
export const OPTIONAL_GRANTS = ['client_credentials', 'refresh_token', 'sso'] as const;
export type OptionalGrant = (typeof OPTIONAL_GRANTS)[number];

export function rejectIf(errors: FieldError[]): void {
  if (errors.length > 0) throw badRequest('validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
}

function requireText(errors: FieldError[], path: string, value: string | undefined, max = 200): void {
  if (!value || value.trim() === '') errors.push({ path, message: 'is required' });
  else if (value.length > max) errors.push({ path, message: `must be at most ${max} characters` });
}

export async function createOrganisation(db: Db, input: { name: string }, now = Date.now()): Promise<{ organisationId: string }> {
  const errors: FieldError[] = [];
  requireText(errors, '/name', input.name);
  rejectIf(errors);
  const organisationId = newId('org');
  await db.insertInto('organisations').values({ id: organisationId, name: input.name.trim(), created_at: now }).execute();
  return { organisationId };
}

export interface NewCompany {
  organisationId: string;
  name: string;
  timezone: string;
  currency: string;
  locale?: string;
}

/**
 * The zone as the company keeps it, or undefined when it is no IANA zone. Names match whatever their
 * case, so a name that only differs from Intl's (ICU's) spelling by case takes that spelling
 * (`europe/amsterdam` → `Europe/Amsterdam`, `utc` → `UTC`). A link or an older name stays as typed
 * (`Asia/Kolkata`, `Etc/UTC`, `US/Pacific`): ICU would answer `Asia/Calcutta` for the first, a
 * surprise to the operator who typed the current IANA name. A link typed in lower case takes ICU's
 * spelling (`asia/kolkata` → `Asia/Calcutta`).
 */
function companyTimeZone(zone: string | undefined): string | undefined {
  // Intl also takes a bare offset (`+01:00`), which is no IANA zone name.
  if (!zone || !/^[A-Za-z]/.test(zone) || !IANAZone.isValidZone(zone)) return undefined;
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  if (canonical.toLowerCase() === zone.toLowerCase()) return canonical;
  // A link typed in lower case (`asia/kolkata`) cannot be re-cased from here: ICU's spelling is
  // at least a name that case-sensitive zone libraries (Java, Python) accept.
  return zone.split('/').every((part) => /^[A-Z]/.test(part)) ? zone : canonical;
}

export async function createCompany(db: Db, input: NewCompany, now = Date.now()): Promise<{ companyId: string }> {
  const errors: FieldError[] = [];
  requireText(errors, '/name', input.name);
  const timezone = companyTimeZone(input.timezone);
  if (timezone === undefined) errors.push({ path: '/timezone', message: 'must be an IANA time zone such as Europe/Amsterdam' });
  if (!/^[A-Z]{3}$/.test(input.currency ?? '')) errors.push({ path: '/currency', message: 'must be an ISO 4217 code such as EUR' });
  const locale = input.locale ?? 'en-GB';
  if (!/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(locale)) errors.push({ path: '/locale', message: 'must be a BCP 47 tag such as nl-NL' });
  rejectIf(errors);
  const organisation = await db.selectFrom('organisations').select('id').where('id', '=', input.organisationId).executeTakeFirst();
  if (!organisation) throw notFound(`No organisation ${input.organisationId}.`);
  const companyId = newId('cmp');
  await db
    .insertInto('companies')
    .values({ id: companyId, organisation_id: input.organisationId, name: input.name.trim(), timezone: timezone ?? '', currency: input.currency, locale, created_at: now, updated_at: now })
    .execute();
  return { companyId };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_REDIRECT_URIS = 20;

/**
 * What is wrong with a redirect URI, or undefined. A console user registers https URIs, or http on a
 * loopback host (native apps, RFC 8252 §7.3); the operator may also register plain http (a demo or a
 * private deployment behind its own TLS).
 */
export function validateRedirectUri(uri: string, actor: Actor = OPERATOR): string | undefined {
  if (uri.length > 2000) return 'must be at most 2000 characters';
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
  const errors: FieldError[] = [];
  if (uris.length === 0) errors.push({ path: '/redirectUris', message: 'needs at least one redirect URI' });
  if (uris.length > MAX_REDIRECT_URIS) errors.push({ path: '/redirectUris', message: `must hold at most ${MAX_REDIRECT_URIS} URIs` });
  uris.forEach((uri, i) => {
    const problem = validateRedirectUri(uri, actor);
    if (problem) errors.push({ path: `/redirectUris/${i}`, message: problem });
  });
  rejectIf(errors);
  return [...new Set(uris)];
}

export interface NewClient {
  companyId: string;
  name: string;
  redirectUris: string[];
  audiences?: string[];
}

/** A new API Client of a company within `reach`; its secret is returned only here. */
export async function createClient(db: Db, reach: Reach, input: NewClient, actor: Actor, now = Date.now()): Promise<{ clientId: string; clientSecret: string }> {
  const errors: FieldError[] = [];
  requireText(errors, '/name', input.name);
  rejectIf(errors);
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
        audiences: JSON.stringify(input.audiences ?? [DEFAULT_AUDIENCE]),
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
export function createApiClient(db: Db, input: NewClient, now = Date.now()): Promise<{ clientId: string; clientSecret: string }> {
  return createClient(db, EVERY_ORGANISATION, input, OPERATOR, now);
}

export function normalisedEmail(value: string | undefined): string {
  const email = (value ?? '').trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw badRequest('validation_failed', '/email must be an email address', [{ path: '/email', message: 'must be an email address' }]);
  }
  return email;
}

/** A new API User of a client within `reach`; its generated secret is returned only here. */
export async function createUser(db: Db, reach: Reach, input: { clientId: string; email: string }, actor: Actor, now = Date.now()): Promise<{ userId: string; email: string; secret: string }> {
  const email = normalisedEmail(input.email);
  const client = await requireClient(db, reach, input.clientId);
  const taken = await db.selectFrom('api_users').select('id').where('client_id', '=', client.id).where('email', '=', email).executeTakeFirst();
  if (taken) throw new ProblemError({ status: 409, code: 'email_taken', detail: `${email} is already an API user of this client.` });
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
export function createApiUser(db: Db, input: { clientId: string; email: string }, now = Date.now()): Promise<{ userId: string; email: string; secret: string }> {
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
