// The grants table (the only module that reads or writes it). A grant is one login (or one
// client-credentials issue); its id is the `sid` of every token that descends from it. Revoking a grant kills its refresh tokens at once (checked in the database) and
// its ID tokens within seconds (through every instance's RevocationList).
import { sql } from 'kysely';
import { onPostgres, sqliteHandleOf, type Db } from '../platform/db/database.ts';
import { toSqliteValue } from '../platform/db/sqlite-dialect.ts';
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

/** `secretLoginsOf`: the API Users' logins with their own secret (no SSO provider) in an organisation. */
type GrantFilter = { grantId: string } | { clientId: string } | { userId: string } | { ssoProviderId: string } | { secretLoginsOf: string };

/** Revokes the matching live grants and returns their ids. */
export async function revokeGrants(db: Db, filter: GrantFilter, reason: string, now = Date.now()): Promise<string[]> {
  let query = db.updateTable('grants').set({ revoked_at: now, revoked_reason: reason }).where('revoked_at', 'is', null);
  if ('grantId' in filter) query = query.where('id', '=', filter.grantId);
  else if ('clientId' in filter) query = query.where('client_id', '=', filter.clientId);
  else if ('ssoProviderId' in filter) query = query.where('sso_provider_id', '=', filter.ssoProviderId);
  else if ('secretLoginsOf' in filter) {
    query = query.where('user_id', 'is not', null).where('sso_provider_id', 'is', null)
      .where('client_id', 'in', (eb) => eb.selectFrom('api_clients').innerJoin('companies', 'companies.id', 'api_clients.company_id').select('api_clients.id').where('companies.organisation_id', '=', filter.secretLoginsOf));
  } else query = query.where('user_id', '=', filter.userId);
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
    // Every refresh-token renewal and code exchange loads its grant: the company's organisation (and
    // its SSO settings) in the same statement, not a second round trip (docs/architecture.md, "Joins of companies").
    .innerJoin('companies', 'companies.id', 'api_clients.company_id')
    .leftJoin('api_users', 'api_users.id', 'grants.user_id')
    .leftJoin('sso_settings', 'sso_settings.organisation_id', 'companies.organisation_id')
    .select([
      'grants.id as grantId',
      'grants.client_id as clientId',
      'grants.user_id as userId',
      'grants.auth_time as authTime',
      'grants.chain_expires_at as chainExpiresAt',
      'grants.revoked_at as revokedAt',
      'grants.audience as audience',
      'grants.idp as idp',
      'grants.sso_provider_id as ssoProviderId',
      'sso_settings.enforce_sso as enforceSso',
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
    // Enforcing SSO revokes these grants; this catches one whose code was exchanged meanwhile.
    secretLoginUnderSso: row.userId !== null && row.ssoProviderId === null && row.enforceSso === 1,
  };
}

/**
 * Where the next read of revocations starts: what the last read's snapshot could not see yet. Every
 * revocation it did not see has a `revoked_seq` of at least `next` or one of `inFlight`.
 */
export interface RevocationMark {
  next: number;
  /** PostgreSQL: the transactions in progress at that snapshot (SQLite has none). */
  inFlight: readonly number[];
}

/** Revocations at start-up (by the writers' clocks: `revokedAfter`), then those the last read's mark left. */
export type RevocationsFrom = { revokedAfter: number } | { mark: RevocationMark };

/**
 * The ids of the grants revoked since `from`, and the mark for the next read, in one statement (one
 * snapshot: the mark is exactly what the ids could not include), by an index (revoked_seq; at
 * start-up revoked_at).
 */
export async function readRevocations(db: Db, from: RevocationsFrom): Promise<{ grantIds: string[]; mark: RevocationMark }> {
  const unseen = 'mark' in from
    ? sql`revoked_seq >= ${from.mark.next}${from.mark.inFlight.length > 0 ? sql` or revoked_seq = any(${[...from.mark.inFlight]})` : sql``}`
    : sql`revoked_at > ${from.revokedAfter}`;
  if (onPostgres(db)) {
    // pg_current_snapshot() is the statement's own snapshot, the one the grants are read with.
    const { rows } = await sql<{ next: number; in_flight: string[]; ids: string[] }>`
      select pg_snapshot_xmax(s)::text::bigint as next, array(select pg_snapshot_xip(s)::text::bigint) as in_flight,
        array(select id from grants where ${unseen}) as ids
      from pg_current_snapshot() s`.execute(db);
    const row = rows[0] as { next: number; in_flight: string[]; ids: string[] };
    return { grantIds: row.ids, mark: { next: Number(row.next), inFlight: row.in_flight.map(Number) } };
  }
  const query = sql<{ next: number; ids: string }>`
    select (select seq + 1 from revocation_counter) as next, (select json_group_array(id) from grants where ${unseen}) as ids`;
  // Off the connection's queue (readCommittedRow): an import holding it for a minute holds up
  // neither this read nor, so, the revocations of other processes.
  const sqlite = sqliteHandleOf(db);
  const compiled = query.compile(db);
  const row = (sqlite ? sqlite.readCommittedRow(compiled.sql, compiled.parameters.map(toSqliteValue)) : (await query.execute(db)).rows[0]) as { next: number; ids: string };
  return { grantIds: JSON.parse(row.ids) as string[], mark: { next: Number(row.next), inFlight: [] } };
}
