// What the operator does for a customer organisation (CONTRACT §5): organisations, companies, API
// Clients and API Users, grants, secret rotation, disabling and re-enabling. Used by the `wfs` CLI
// and the operator API alike.
import { IANAZone } from 'luxon';
import type { Db } from '../platform/db/database.ts';
import { ProblemError, badRequest, notFound, type FieldError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { generateClientSecret, generateUserSecret, hashUserSecret } from './secrets.ts';
import { revokeGrants, voidPendingCodes } from './grants.ts';
import { DEFAULT_AUDIENCE } from './tokens.ts';
import { recordAudit } from './audit.ts';

/** Every change to who may get tokens is written to the audit log, beside the change itself. */
function auditChange(db: Db, detail: string, ids: { clientId?: string; userId?: string }): Promise<void> {
  return recordAudit(db, { event: 'operator_change', outcome: 'success', clientId: ids.clientId ?? null, userId: ids.userId ?? null, detail });
}

export const OPTIONAL_GRANTS = ['client_credentials', 'refresh_token', 'sso'] as const;
export type OptionalGrant = (typeof OPTIONAL_GRANTS)[number];

function rejectIf(errors: FieldError[]): void {
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

export function validateRedirectUri(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https (or http)';
  if (url.hash !== '' || uri.includes('#')) return 'must not contain a fragment';
  return undefined;
}

export async function createApiClient(
  db: Db,
  input: { companyId: string; name: string; redirectUris: string[]; audiences?: string[] },
  now = Date.now(),
): Promise<{ clientId: string; clientSecret: string }> {
  const errors: FieldError[] = [];
  requireText(errors, '/name', input.name);
  if (input.redirectUris.length === 0) errors.push({ path: '/redirectUris', message: 'needs at least one redirect URI' });
  input.redirectUris.forEach((uri, i) => {
    const problem = validateRedirectUri(uri);
    if (problem) errors.push({ path: `/redirectUris/${i}`, message: problem });
  });
  rejectIf(errors);
  const company = await db.selectFrom('companies').select('id').where('id', '=', input.companyId).executeTakeFirst();
  if (!company) throw notFound(`No company ${input.companyId}.`);
  const clientId = newId('cli');
  const { secret, hash } = generateClientSecret();
  await db
    .insertInto('api_clients')
    .values({
      id: clientId,
      company_id: input.companyId,
      name: input.name.trim(),
      secret_hash: hash,
      redirect_uris: JSON.stringify(input.redirectUris),
      grants: JSON.stringify(['authorization_code']),
      audiences: JSON.stringify(input.audiences ?? [DEFAULT_AUDIENCE]),
      disabled: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await auditChange(db, 'client_created', { clientId });
  return { clientId, clientSecret: secret };
}

async function requireClient(db: Db, clientId: string) {
  const client = await db.selectFrom('api_clients').selectAll().where('id', '=', clientId).executeTakeFirst();
  if (!client) throw notFound(`No API client ${clientId}.`);
  return client;
}

export async function createApiUser(db: Db, input: { clientId: string; email: string }, now = Date.now()): Promise<{ userId: string; email: string; secret: string }> {
  const email = (input.email ?? '').trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw badRequest('validation_failed', '/email must be an email address', [{ path: '/email', message: 'must be an email address' }]);
  }
  await requireClient(db, input.clientId);
  const taken = await db.selectFrom('api_users').select('id').where('client_id', '=', input.clientId).where('email', '=', email).executeTakeFirst();
  if (taken) throw new ProblemError({ status: 409, code: 'email_taken', detail: `${email} is already an API user of this client.` });
  const userId = newId('usr');
  const secret = generateUserSecret();
  await db.insertInto('api_users').values({ id: userId, client_id: input.clientId, email, secret_hash: await hashUserSecret(secret), disabled: 0, created_at: now }).execute();
  await auditChange(db, 'user_created', { clientId: input.clientId, userId });
  return { userId, email, secret };
}

export async function setGrantEnabled(db: Db, clientId: string, grant: string, enabled: boolean): Promise<{ clientId: string; grants: string[] }> {
  if (!(OPTIONAL_GRANTS as readonly string[]).includes(grant)) {
    throw badRequest('validation_failed', `grant must be one of ${OPTIONAL_GRANTS.join(', ')}`, [{ path: '/grant', message: `must be one of ${OPTIONAL_GRANTS.join(', ')}` }]);
  }
  const client = await requireClient(db, clientId);
  const current = new Set(JSON.parse(client.grants) as string[]);
  if (enabled) current.add(grant);
  else current.delete(grant);
  const grants = ['authorization_code', ...OPTIONAL_GRANTS.filter((g) => current.has(g))];
  await db.updateTable('api_clients').set({ grants: JSON.stringify(grants), updated_at: Date.now() }).where('id', '=', clientId).execute();
  await auditChange(db, `grant_${enabled ? 'enabled' : 'disabled'}:${grant}`, { clientId });
  return { clientId, grants };
}

/** A new secret ends every grant issued under the old one (a leaked secret must stop working). */
export async function rotateClientSecret(db: Db, clientId: string): Promise<{ clientId: string; clientSecret: string; revokedGrants: string[] }> {
  await requireClient(db, clientId);
  const { secret, hash } = generateClientSecret();
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('api_clients').set({ secret_hash: hash, updated_at: Date.now() }).where('id', '=', clientId).execute();
    await voidPendingCodes(trx, { clientId });
    const revokedGrants = await revokeGrants(trx, { clientId }, 'client_secret_rotated');
    await auditChange(trx, 'client_secret_rotated', { clientId });
    return { clientId, clientSecret: secret, revokedGrants };
  });
}

export async function setClientDisabled(db: Db, clientId: string, disabled: boolean): Promise<{ clientId: string; disabled: boolean; revokedGrants: string[] }> {
  await requireClient(db, clientId);
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('api_clients').set({ disabled: disabled ? 1 : 0, updated_at: Date.now() }).where('id', '=', clientId).execute();
    await auditChange(trx, disabled ? 'client_disabled' : 'client_enabled', { clientId });
    if (!disabled) return { clientId, disabled, revokedGrants: [] };
    await voidPendingCodes(trx, { clientId });
    return { clientId, disabled, revokedGrants: await revokeGrants(trx, { clientId }, 'client_disabled') };
  });
}

export async function setUserDisabled(db: Db, userId: string, disabled: boolean): Promise<{ userId: string; disabled: boolean; revokedGrants: string[] }> {
  const user = await db.selectFrom('api_users').select('id').where('id', '=', userId).executeTakeFirst();
  if (!user) throw notFound(`No API user ${userId}.`);
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('api_users').set({ disabled: disabled ? 1 : 0 }).where('id', '=', userId).execute();
    await auditChange(trx, disabled ? 'user_disabled' : 'user_enabled', { userId });
    if (!disabled) return { userId, disabled, revokedGrants: [] };
    await voidPendingCodes(trx, { userId });
    return { userId, disabled, revokedGrants: await revokeGrants(trx, { userId }, 'user_disabled') };
  });
}
