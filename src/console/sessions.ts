// Console sessions, stored in the database so every instance shares them (CONTRACT §6). The cookie
// holds a random token; the table holds its SHA-256. A session ends after 30 minutes idle or 12 hours
// in all; signing in takes two stages (password, then TOTP code), the first one short-lived, and the
// second one gets a fresh token so a token seen before the sign-in is worth nothing after it.
import type { Db } from '../platform/db/database.ts';
import { newSecret, sha256 } from '../platform/ids.ts';
import type { ConsoleRole } from './tables.ts';

export const IDLE_TIMEOUT_MS = 30 * 60_000;
export const ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60_000;
/** Time allowed between the password and the TOTP code of a sign-in. */
export const CODE_STAGE_TIMEOUT_MS = 5 * 60_000;
/** How recent password + TOTP must be before a secret is shown, created or rotated. */
export const STEP_UP_MS = 10 * 60_000;
/** last_seen_at is written at most this often: a page view is not worth a write each time. */
const TOUCH_EVERY_MS = 15_000;

export interface ConsoleSession {
  tokenHash: string;
  stage: 'password' | 'active';
  createdAt: number;
  authenticatedAt: number;
  user: { id: string; organisationId: string; email: string; role: ConsoleRole };
}

async function insertSession(db: Db, userId: string, stage: 'password' | 'active', now: number, createdAt = now, authenticatedAt = now): Promise<string> {
  const token = newSecret(32);
  await db.insertInto('console_sessions').values({ token_hash: sha256(token), user_id: userId, stage, created_at: createdAt, last_seen_at: now, authenticated_at: authenticatedAt }).execute();
  return token;
}

/** After a right password: a session that only lets its holder enter the TOTP code. */
export function startSignIn(db: Db, userId: string, now: number): Promise<string> {
  return insertSession(db, userId, 'password', now, now, 0);
}

/**
 * After the right code (sign-in or accepted invitation): the password-stage token, if any, is
 * replaced, and the person's sessions that ended unseen (a closed browser) are cleared away.
 */
export async function completeSignIn(db: Db, userId: string, now: number, previousTokenHash?: string): Promise<string> {
  if (previousTokenHash) await db.deleteFrom('console_sessions').where('token_hash', '=', previousTokenHash).execute();
  await db
    .deleteFrom('console_sessions')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_seen_at', '<', now - IDLE_TIMEOUT_MS), eb('created_at', '<', now - ABSOLUTE_TIMEOUT_MS)]))
    .execute();
  return insertSession(db, userId, 'active', now);
}

function expired(row: { stage: string; created_at: number; last_seen_at: number }, now: number): boolean {
  if (row.stage === 'password') return now - row.created_at > CODE_STAGE_TIMEOUT_MS;
  return now - row.last_seen_at > IDLE_TIMEOUT_MS || now - row.created_at > ABSOLUTE_TIMEOUT_MS;
}

/** The live session of a cookie token, its idle timer restarted; an expired one is deleted. */
export async function readSession(db: Db, token: string | undefined, now: number): Promise<ConsoleSession | undefined> {
  if (!token || token.length > 100) return undefined;
  const tokenHash = sha256(token);
  const row = await db
    .selectFrom('console_sessions as s')
    .innerJoin('console_users as u', 'u.id', 's.user_id')
    .select(['s.stage', 's.created_at', 's.last_seen_at', 's.authenticated_at', 'u.id', 'u.organisation_id', 'u.email', 'u.role'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  if (expired(row, now)) {
    await endSession(db, tokenHash);
    return undefined;
  }
  if (now - row.last_seen_at >= TOUCH_EVERY_MS) {
    await db.updateTable('console_sessions').set({ last_seen_at: now }).where('token_hash', '=', tokenHash).execute();
  }
  return {
    tokenHash,
    stage: row.stage,
    createdAt: row.created_at,
    authenticatedAt: row.authenticated_at,
    user: { id: row.id, organisationId: row.organisation_id, email: row.email, role: row.role },
  };
}

export async function endSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
}

export async function recordStepUp(db: Db, tokenHash: string, now: number): Promise<void> {
  await db.updateTable('console_sessions').set({ authenticated_at: now, last_seen_at: now }).where('token_hash', '=', tokenHash).execute();
}

export function steppedUp(session: ConsoleSession, now: number): boolean {
  return now - session.authenticatedAt <= STEP_UP_MS;
}
