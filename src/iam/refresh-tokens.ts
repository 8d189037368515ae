// The refresh_tokens table: every refresh token issued, its place in its grant's chain (parent) and
// when a successor superseded it. The only module that reads or writes it; each function takes `db`
// first, so a caller's transaction can be passed.
import type { Db } from '../platform/db/database.ts';
import type { RefreshTokensTable } from './tables.ts';

/** A refresh token as recorded: what its JWT says, and what only the database knows. */
export interface RefreshTokenRecord {
  jti: string;
  grantId: string;
  parentJti: string | null;
  issuedAt: number;
  expiresAt: number;
  supersededAt: number | null;
}

function record(row: RefreshTokensTable): RefreshTokenRecord {
  return { jti: row.jti, grantId: row.grant_id, parentJti: row.parent_jti, issuedAt: row.issued_at, expiresAt: row.expires_at, supersededAt: row.superseded_at };
}

export async function insertRefreshToken(db: Db, token: Omit<RefreshTokenRecord, 'supersededAt'>): Promise<void> {
  await db
    .insertInto('refresh_tokens')
    .values({ jti: token.jti, grant_id: token.grantId, parent_jti: token.parentJti, issued_at: token.issuedAt, expires_at: token.expiresAt, superseded_at: null })
    .execute();
}

export async function findRefreshToken(db: Db, jti: string): Promise<RefreshTokenRecord | undefined> {
  const row = await db.selectFrom('refresh_tokens').selectAll().where('jti', '=', jti).executeTakeFirst();
  return row ? record(row) : undefined;
}

/**
 * Marks the token superseded unless it already is: the conditional UPDATE picks one winner among
 * concurrent renewals, on every instance. True for the winner.
 */
export async function supersedeRefreshToken(db: Db, jti: string, now: number): Promise<boolean> {
  const result = await db.updateTable('refresh_tokens').set({ superseded_at: now }).where('jti', '=', jti).where('superseded_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The newest token issued to succeed `parentJti` in the grant's chain. */
export async function successorRecord(db: Db, grantId: string, parentJti: string): Promise<RefreshTokenRecord | undefined> {
  const row = await db
    .selectFrom('refresh_tokens')
    .selectAll()
    .where('parent_jti', '=', parentJti)
    .where('grant_id', '=', grantId)
    .orderBy('issued_at', 'desc')
    .executeTakeFirst();
  return row ? record(row) : undefined;
}
