// A grant is one login (or one client-credentials issue); its id is the `sid` of every token that
// descends from it. Revoking a grant kills its refresh tokens at once (checked in the database) and
// its ID tokens within seconds (through every instance's RevocationList).
import type { Db } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';

export interface NewGrant {
  clientId: string;
  userId: string | null;
  kind: 'authorization_code' | 'client_credentials';
  authTime: number;
  chainMaxSeconds: number;
}

export async function createGrant(db: Db, grant: NewGrant, now = Date.now()): Promise<string> {
  const id = newId('sid');
  await db
    .insertInto('grants')
    .values({
      id,
      client_id: grant.clientId,
      user_id: grant.userId,
      kind: grant.kind,
      auth_time: grant.authTime,
      created_at: now,
      chain_expires_at: now + grant.chainMaxSeconds * 1000,
      revoked_at: null,
      revoked_reason: null,
    })
    .execute();
  return id;
}

type GrantFilter = { grantId: string } | { clientId: string } | { userId: string };

/** Revokes the matching live grants and returns their ids. */
export async function revokeGrants(db: Db, filter: GrantFilter, reason: string, now = Date.now()): Promise<string[]> {
  let query = db.updateTable('grants').set({ revoked_at: now, revoked_reason: reason }).where('revoked_at', 'is', null);
  if ('grantId' in filter) query = query.where('id', '=', filter.grantId);
  else if ('clientId' in filter) query = query.where('client_id', '=', filter.clientId);
  else query = query.where('user_id', '=', filter.userId);
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id);
}

/** Marks every not-yet-exchanged code of a client or user as used, so it can never be exchanged. */
export async function voidPendingCodes(db: Db, filter: { clientId: string } | { userId: string }, now = Date.now()): Promise<void> {
  let query = db.updateTable('authorization_codes').set({ used_at: now }).where('used_at', 'is', null);
  query = 'clientId' in filter ? query.where('client_id', '=', filter.clientId) : query.where('user_id', '=', filter.userId);
  await query.execute();
}
