// The organisations' SSO providers (CONTRACT §8), managed by the operator (`wfs`, the operator API)
// and later the console: add (issuer checked against its discovery document, client secret sealed
// and never shown again, domains unique across every provider), list, update, remove (revoking the
// grants made through the provider), and whether the organisation enforces SSO.
import { onPostgres, type Db } from '../platform/db/database.ts';
import { badRequest, conflict, notFound, type FieldError } from '../platform/errors.ts';
import { rejectIf, schemaErrors } from '../platform/validation.ts';
import { newId } from '../platform/ids.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import { OPERATOR, changeEvent, recordAudit, type Actor } from '../iam/audit.ts';
import { revokeGrants, voidPendingCodes } from '../iam/grants.ts';
import { DiscoveryFailure, discoverIssuer, issuerProblem, type ProviderEndpoint } from './relying-party.ts';
import { NewProviderBody, ProviderChangeBody, type CreatedProvider, type Enforcement, type NewSsoProvider, type OrganisationSso, type RemovedProvider, type SsoProvider, type SsoProviderChange } from './schemas.ts';


export interface ProviderSettings {
  box: SecretBox;
  allowInsecure: boolean;
}

/** Whether `errors` has one at `path` or inside it: what failed its schema is not checked further. */
function failedAt(errors: FieldError[], path: string): boolean {
  return errors.some((e) => e.path === path || e.path.startsWith(`${path}/`));
}

/** The domains as stored (trimmed, lower case, no `@`); one listed twice once normalised is an error. */
function normalisedDomains(errors: FieldError[], domains: string[]): string[] {
  const result = domains.map((d) => d.trim().toLowerCase().replace(/^@/, ''));
  result.forEach((domain, i) => {
    if (!failedAt(errors, `/domains/${i}`) && result.indexOf(domain) !== i) errors.push({ path: `/domains/${i}`, message: 'is listed twice' });
  });
  return result;
}

const FIELD_ORDER = ['/issuer', '/clientId', '/clientSecret', '/domains'];
const fieldRank = (error: FieldError): number => FIELD_ORDER.findIndex((field) => error.path === field || error.path.startsWith(`${field}/`));
const itemRank = (error: FieldError): number => Number(/\/(\d+)$/.exec(error.path)?.[1] ?? -1);

/**
 * Checks `input` against its schema (the operator API's body) and then what a schema cannot say —
 * the issuer for this deployment, a domain listed twice once normalised, the discovery document —
 * answering every field's errors in one refusal, in the fields' order.
 */
async function checkedFields(schema: typeof NewProviderBody | typeof ProviderChangeBody, input: SsoProviderChange, settings: ProviderSettings): Promise<SsoProviderChange> {
  const errors = schemaErrors(schema, input);
  const out: SsoProviderChange = {};
  if (input.issuer !== undefined && !failedAt(errors, '/issuer')) {
    const problem = issuerProblem(input.issuer, settings.allowInsecure);
    if (problem) errors.push({ path: '/issuer', message: problem });
  }
  // Item by item: a domain listed twice is found beside another item's schema error.
  if (Array.isArray(input.domains) && !errors.some((e) => e.path === '/domains')) out.domains = normalisedDomains(errors, input.domains);
  rejectIf(errors.sort((a, b) => fieldRank(a) - fieldRank(b) || itemRank(a) - itemRank(b)));
  if (input.clientId !== undefined) out.clientId = input.clientId.trim();
  if (input.clientSecret !== undefined) out.clientSecret = input.clientSecret;
  if (input.issuer !== undefined) out.issuer = await discoveredIssuer(input.issuer, settings.allowInsecure);
  return out;
}

/**
 * The issuer as its discovery document spells it, or 400 sso_discovery_failed: the detail (with
 * addresses and error codes) is for the operator, the field error a category anyone may read (the
 * console shows only that, and logs the detail).
 */
async function discoveredIssuer(issuer: string, allowInsecure: boolean): Promise<string> {
  try {
    return await discoverIssuer(issuer, allowInsecure);
  } catch (error) {
    if (!(error instanceof DiscoveryFailure)) throw error;
    throw badRequest('sso_discovery_failed', error.message, [{ path: '/issuer', message: error.problem.text }]);
  }
}

/** Refuses domains another provider owns (the table's primary key guards against a race too). */
async function claimDomains(db: Db, providerId: string, domains: string[]): Promise<void> {
  const taken = await db.selectFrom('sso_domains').select('domain').where('domain', 'in', domains).where('provider_id', '<>', providerId).execute();
  if (taken.length > 0) throw conflict('sso_domain_taken', `The email domain${taken.length > 1 ? 's' : ''} ${taken.map((t) => t.domain).join(', ')} already belong${taken.length > 1 ? '' : 's'} to another SSO provider: a domain belongs to one provider.`);
  await db.deleteFrom('sso_domains').where('provider_id', '=', providerId).execute();
  await db.insertInto('sso_domains').values(domains.map((domain) => ({ domain, provider_id: providerId }))).execute();
}

async function issuerTaken(db: Db, organisationId: string, issuer: string, providerId: string): Promise<void> {
  const row = await db.selectFrom('sso_providers').select('id').where('organisation_id', '=', organisationId).where('issuer', '=', issuer).where('id', '<>', providerId).executeTakeFirst();
  if (row) throw conflict('sso_provider_exists', `The organisation already has a provider for ${issuer} (${row.id}).`);
}

function uniqueViolation(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  const text = error instanceof Error ? `${error.message} ${typeof code === 'string' ? code : ''}` : '';
  return /UNIQUE constraint|23505|duplicate key/i.test(text);
}

/** Runs a write that claims domains; a racing claim of the same domain ends as the same 409. */
async function guardedClaim<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (uniqueViolation(error)) throw conflict('sso_domain_taken', 'An email domain already belongs to another SSO provider: a domain belongs to one provider.');
    throw error;
  }
}

/** `actor`: the operator (CLI, operator API) or a console user of the organisation, for the audit log. */
export async function addSsoProvider(db: Db, settings: ProviderSettings, input: NewSsoProvider, actor: Actor = OPERATOR, now = Date.now()): Promise<CreatedProvider> {
  await requireOrganisation(db, input.organisationId);
  const { organisationId: _organisationId, ...body } = input;
  const fields = await checkedFields(NewProviderBody, body, settings) as Required<SsoProviderChange>;
  const providerId = newId('idp');
  await guardedClaim(() => db.transaction().execute(async (trx) => {
    await issuerTaken(trx, input.organisationId, fields.issuer, providerId);
    await trx.insertInto('sso_providers').values({
      id: providerId,
      organisation_id: input.organisationId,
      issuer: fields.issuer,
      client_id: fields.clientId,
      client_secret_encrypted: settings.box.seal(fields.clientSecret, providerId),
      created_at: now,
      updated_at: now,
    }).execute();
    await claimDomains(trx, providerId, fields.domains);
    await recordAudit(trx, { event: changeEvent(actor), outcome: 'success', organisationId: input.organisationId, actor, detail: 'sso_provider_added', context: { providerId, issuer: fields.issuer, domains: fields.domains } }, now);
  }));
  return { providerId };
}

async function requireProvider(db: Db, providerId: string) {
  const row = await db.selectFrom('sso_providers').selectAll().where('id', '=', providerId).executeTakeFirst();
  if (!row) throw notFound(`No SSO provider ${providerId}.`);
  return row;
}

/** `scope.organisationId`: only a provider of that organisation (a console user's); another's id is 404. */
export async function updateSsoProvider(db: Db, settings: ProviderSettings, providerId: string, change: SsoProviderChange, now = Date.now(), scope: { organisationId?: string; actor?: Actor } = {}): Promise<SsoProvider> {
  const row = await requireProvider(db, providerId);
  if (scope.organisationId !== undefined && row.organisation_id !== scope.organisationId) throw notFound(`No SSO provider ${providerId}.`);
  const actor = scope.actor ?? OPERATOR;
  if (Object.values(change).every((v) => v === undefined)) throw badRequest('validation_failed', 'Name at least one of issuer, clientId, clientSecret and domains to change.');
  const fields = await checkedFields(ProviderChangeBody, change, settings);
  await guardedClaim(() => db.transaction().execute(async (trx) => {
    if (fields.issuer !== undefined) await issuerTaken(trx, row.organisation_id, fields.issuer, providerId);
    await trx.updateTable('sso_providers').set({
      ...(fields.issuer !== undefined ? { issuer: fields.issuer } : {}),
      ...(fields.clientId !== undefined ? { client_id: fields.clientId } : {}),
      ...(fields.clientSecret !== undefined ? { client_secret_encrypted: settings.box.seal(fields.clientSecret, providerId) } : {}),
      updated_at: Math.max(now, row.updated_at + 1),
    }).where('id', '=', providerId).execute();
    if (fields.domains !== undefined) await claimDomains(trx, providerId, fields.domains);
    // Links name the issuer: people of another issuer are matched (and linked) afresh.
    if (fields.issuer !== undefined && fields.issuer !== row.issuer) await trx.deleteFrom('sso_links').where('provider_id', '=', providerId).execute();
    await recordAudit(trx, { event: changeEvent(actor), outcome: 'success', organisationId: row.organisation_id, actor, detail: 'sso_provider_updated', context: { providerId, changed: Object.keys(fields) } }, now);
  }));
  const [provider] = await listProviders(db, { providerId });
  return provider as SsoProvider;
}

/** Locks the provider's row for its removal (PostgreSQL; SQLite runs one write transaction at a time). */
async function lockProvider(trx: Db, providerId: string): Promise<void> {
  if (onPostgres(trx)) await trx.selectFrom('sso_providers').select('id').where('id', '=', providerId).forUpdate().execute();
}

/** `organisationId`: only a provider of that organisation (a console user's); another's id is 404. */
export async function removeSsoProvider(db: Db, providerId: string, scope: { organisationId?: string; actor?: Actor } = {}, now = Date.now()): Promise<RemovedProvider> {
  const row = await requireProvider(db, providerId);
  if (scope.organisationId !== undefined && row.organisation_id !== scope.organisationId) throw notFound(`No SSO provider ${providerId}.`);
  const actor = scope.actor ?? OPERATOR;
  const revoked = await db.transaction().execute(async (trx) => {
    // On PostgreSQL the provider's row is locked first: an SSO login storing its link (matching.ts)
    // or its code (codes.ts), each with a share lock on this row, then either committed first, and
    // its link is deleted and its code voided below, or waits for this removal and finds no provider.
    // (Without the lock, a link stored between the links' delete and the row's delete made the
    // row's delete fail on the foreign key.)
    await lockProvider(trx, providerId);
    await trx.deleteFrom('sso_pending').where('provider_id', '=', providerId).execute();
    await trx.deleteFrom('sso_links').where('provider_id', '=', providerId).execute();
    await trx.deleteFrom('sso_domains').where('provider_id', '=', providerId).execute();
    await trx.deleteFrom('sso_providers').where('id', '=', providerId).execute();
    await voidPendingCodes(trx, { ssoProviderId: providerId }, now);
    const grants = await revokeGrants(trx, { ssoProviderId: providerId }, 'sso_provider_removed', now);
    await recordAudit(trx, { event: changeEvent(actor), outcome: 'success', organisationId: row.organisation_id, actor, detail: 'sso_provider_removed', context: { providerId, revokedGrants: grants.length } }, now);
    return grants;
  });
  return { providerId, removed: true, revokedGrants: revoked.length };
}

async function listProviders(db: Db, filter: { organisationId: string } | { providerId: string }): Promise<SsoProvider[]> {
  let query = db.selectFrom('sso_providers').select(['id', 'organisation_id', 'issuer', 'client_id', 'created_at', 'updated_at']).orderBy('created_at').orderBy('id');
  query = 'providerId' in filter ? query.where('id', '=', filter.providerId) : query.where('organisation_id', '=', filter.organisationId);
  const rows = await query.execute();
  const domains = rows.length === 0 ? [] : await db.selectFrom('sso_domains').select(['domain', 'provider_id']).where('provider_id', 'in', rows.map((r) => r.id)).orderBy('domain').execute();
  return rows.map((row) => ({
    providerId: row.id,
    organisationId: row.organisation_id,
    issuer: row.issuer,
    clientId: row.client_id,
    domains: domains.filter((d) => d.provider_id === row.id).map((d) => d.domain),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  }));
}

export async function enforcesSso(db: Db, organisationId: string): Promise<boolean> {
  const row = await db.selectFrom('sso_settings').select('enforce_sso').where('organisation_id', '=', organisationId).executeTakeFirst();
  return row?.enforce_sso === 1;
}

export async function organisationSso(db: Db, organisationId: string): Promise<OrganisationSso> {
  await requireOrganisation(db, organisationId);
  return { organisationId, enforceSso: await enforcesSso(db, organisationId), providers: await listProviders(db, { organisationId }) };
}

/**
 * Turns enforcement on or off. On, it also revokes, in the same transaction, every live grant of the
 * organisation's API Users that a login with their own secret made (no SSO provider): an admin
 * enforces SSO to cut off secret access, so those sessions end too — refresh tokens at once, ID
 * tokens within seconds (the `sid` rule of CONTRACT §2). A code from a secret login that is exchanged
 * after this is refused (grantRefusal). Client-credentials grants are the client's, not an API
 * User's secret login: they stay. Off revokes nothing.
 */
export async function setSsoEnforced(db: Db, organisationId: string, enforceSso: boolean, actor: Actor = OPERATOR, now = Date.now()): Promise<Enforcement> {
  await requireOrganisation(db, organisationId);
  await db.transaction().execute(async (trx) => {
    await lockOrganisationForEnforcement(trx, organisationId);
    await trx.insertInto('sso_settings').values({ organisation_id: organisationId, enforce_sso: enforceSso ? 1 : 0, updated_at: now })
      .onConflict((oc) => oc.column('organisation_id').doUpdateSet({ enforce_sso: enforceSso ? 1 : 0, updated_at: now })).execute();
    const revoked = enforceSso ? await revokeGrants(trx, { secretLoginsOf: organisationId }, 'sso_enforced', now) : [];
    await recordAudit(trx, { event: changeEvent(actor), outcome: 'success', organisationId, actor, detail: `sso_enforcement_${enforceSso ? 'on' : 'off'}`, ...(enforceSso ? { context: { revokedGrants: revoked.length } } : {}) }, now);
  });
  return { organisationId, enforceSso };
}

/**
 * PostgreSQL: locks the organisation's row before enforcement changes. A secret login's code exchange
 * takes a share lock on the same row before it reads the settings (codes.ts): either it committed
 * first, and the revocation below sees its grant, or it waits for this commit and finds enforcement
 * on. Without the lock, an exchange that read "off" and committed after this UPDATE kept a live grant.
 * No KEY UPDATE: inserts that only reference the organisation (its companies) do not wait. SQLite
 * runs one write transaction at a time (begin immediate), and the exchange reads inside its own.
 */
async function lockOrganisationForEnforcement(trx: Db, organisationId: string): Promise<void> {
  if (onPostgres(trx)) await trx.selectFrom('organisations').select('id').where('id', '=', organisationId).forNoKeyUpdate().execute();
}

/** The provider of an email's domain among one organisation's providers, with its secret opened. */
export async function providerForEmail(db: Db, box: SecretBox, organisationId: string, email: string): Promise<ProviderEndpoint & { domains: string[] } | undefined> {
  const domain = email.trim().toLowerCase().split('@')[1];
  if (!domain) return undefined;
  const row = await db.selectFrom('sso_domains').innerJoin('sso_providers', 'sso_providers.id', 'sso_domains.provider_id')
    .select('sso_providers.id').where('sso_domains.domain', '=', domain).where('sso_providers.organisation_id', '=', organisationId).executeTakeFirst();
  return row ? loadEndpoint(db, box, row.id) : undefined;
}

/** Every provider of an organisation, with secrets opened (for the login page's form targets). */
export async function organisationEndpoints(db: Db, box: SecretBox, organisationId: string): Promise<ProviderEndpoint[]> {
  const rows = await db.selectFrom('sso_providers').select('id').where('organisation_id', '=', organisationId).execute();
  const endpoints = await Promise.all(rows.map((r) => loadEndpoint(db, box, r.id)));
  return endpoints.filter((e) => e !== undefined);
}

export async function loadEndpoint(db: Db, box: SecretBox, providerId: string): Promise<ProviderEndpoint & { organisationId: string; domains: string[] } | undefined> {
  const row = await db.selectFrom('sso_providers').selectAll().where('id', '=', providerId).executeTakeFirst();
  if (!row) return undefined;
  const domains = await db.selectFrom('sso_domains').select('domain').where('provider_id', '=', providerId).execute();
  return {
    id: row.id,
    organisationId: row.organisation_id,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: box.open(row.client_secret_encrypted, row.id),
    version: Number(row.updated_at),
    domains: domains.map((d) => d.domain),
  };
}
