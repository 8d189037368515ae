// The grants table (the only module that reads or writes it). A grant is one login (or one
// client-credentials issue); its id is the `sid` of every token that descends from it. Revoking a grant kills its refresh tokens at once (checked in the database) and
// its ID tokens within seconds (through every instance's RevocationList).
import type { Db } from '../platform/db/database.ts';
import type { PendingInsert } from '../platform/db/durability.ts';
import { newId } from '../platform/ids.ts';
import type { RevocationList } from './revocations.ts';
import type { LoadedGrant } from './issuance.ts';
import { DEFAULT_AUDIENCE } from './tokens.ts';

export interface NewGrant {
  /** Chosen by the caller when it must record the id before the grant exists (a code exchange). */
  id?: string;
  clientId: string;
  userId: string | null;
  kind: 'authorization_code' | 'client_credentials';
  authTime: number;
  chainMaxSeconds: number;
  /** Audience of the ID tokens issued from this grant; the default audience when absent. */
  audience?: string;
  /** The login came through this SSO provider (its issuer becomes the tokens' `idp`). */
  federation?: Federation | null;
}

/** The SSO provider a login came through: removing the provider revokes the grant. */
export interface Federation {
  providerId: string;
  issuer: string;
}

export function newGrantId(): string {
  return newId('sid');
}

/** The insert of a grant, not yet run (see `bookkeeping`). */
export function grantInsert(grant: NewGrant & { id: string }, now: number): PendingInsert {
  return (db) => db.insertInto('grants').values({
    id: grant.id,
    client_id: grant.clientId,
    user_id: grant.userId,
    kind: grant.kind,
    auth_time: grant.authTime,
    created_at: now,
    // The chain is capped from the login, not from when the code was exchanged; from the login's
    // whole second, as the tokens' auth_time says, so no refresh token's exp passes auth_time + cap.
    chain_expires_at: Math.floor(grant.authTime / 1000) * 1000 + grant.chainMaxSeconds * 1000,
    audience: grant.audience ?? null,
    revoked_at: null,
    revoked_reason: null,
    sso_provider_id: grant.federation?.providerId ?? null,
    idp: grant.federation?.issuer ?? null,
  });
}

export async function createGrant(db: Db, grant: NewGrant, now = Date.now()): Promise<string> {
  const id = grant.id ?? newGrantId();
  await grantInsert({ ...grant, id }, now)(db).execute();
  return id;
}

type GrantFilter = { grantId: string } | { clientId: string } | { userId: string } | { ssoProviderId: string };

/** Revokes the matching live grants and returns their ids. */
export async function revokeGrants(db: Db, filter: GrantFilter, reason: string, now = Date.now()): Promise<string[]> {
  let query = db.updateTable('grants').set({ revoked_at: now, revoked_reason: reason }).where('revoked_at', 'is', null);
  if ('grantId' in filter) query = query.where('id', '=', filter.grantId);
  else if ('clientId' in filter) query = query.where('client_id', '=', filter.clientId);
  else if ('ssoProviderId' in filter) query = query.where('sso_provider_id', '=', filter.ssoProviderId);
  else query = query.where('user_id', '=', filter.userId);
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id);
}

/** Marks every not-yet-exchanged code of a client or user as used, so it can never be exchanged. */
export async function voidPendingCodes(db: Db, filter: { clientId: string } | { userId: string } | { ssoProviderId: string }, now = Date.now()): Promise<void> {
  let query = db.updateTable('authorization_codes').set({ used_at: now }).where('used_at', 'is', null);
  if ('clientId' in filter) query = query.where('client_id', '=', filter.clientId);
  else if ('userId' in filter) query = query.where('user_id', '=', filter.userId);
  else query = query.where('sso_provider_id', '=', filter.ssoProviderId);
  await query.execute();
}

/** Revokes one grant in the database and, at once, in this instance's revocation list. */
export async function revokeGrantNow(db: Db, revocations: RevocationList, grantId: string, reason: string, now = Date.now()): Promise<void> {
  for (const id of await revokeGrants(db, { grantId }, reason, now)) revocations.remember(id, now);
}

/** A grant with its client, company and user: what decides whether it may still issue tokens. */
export async function loadGrantContext(db: Db, grantId: string): Promise<LoadedGrant | undefined> {
  const row = await db
    .selectFrom('grants')
    .innerJoin('api_clients', 'api_clients.id', 'grants.client_id')
    .innerJoin('companies', 'companies.id', 'api_clients.company_id')
    .leftJoin('api_users', 'api_users.id', 'grants.user_id')
    .select([
      'grants.id as grantId',
      'grants.client_id as clientId',
      'grants.user_id as userId',
      'grants.auth_time as authTime',
      'grants.chain_expires_at as chainExpiresAt',
      'grants.revoked_at as revokedAt',
      'grants.audience as audience',
      'grants.idp as idp',
      'api_users.email as email',
      'api_users.disabled as userDisabled',
      'api_clients.disabled as clientDisabled',
      'companies.id as companyId',
      'companies.organisation_id as organisationId',
    ])
    .where('grants.id', '=', grantId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    grantId: row.grantId,
    clientId: row.clientId,
    userId: row.userId,
    email: row.email,
    companyId: row.companyId,
    organisationId: row.organisationId,
    authTime: row.authTime,
    chainExpiresAt: row.chainExpiresAt,
    audience: row.audience ?? DEFAULT_AUDIENCE,
    idp: row.idp,
    revokedAt: row.revokedAt,
    clientDisabled: row.clientDisabled === 1,
    userDisabled: row.userDisabled === 1,
  };
}

/** The grants revoked after `since` (epoch ms), for every instance's revocation list. */
export async function revokedSince(db: Db, since: number): Promise<Array<{ id: string; revokedAt: number | null }>> {
  const rows = await db.selectFrom('grants').select(['id', 'revoked_at']).where('revoked_at', '>', since).execute();
  return rows.map((row) => ({ id: row.id, revokedAt: row.revoked_at }));
}
