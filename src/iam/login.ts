// Checking an API User's email and secret for one API Client: only the users of that client can log
// in. The secret is always hashed, even for an unknown email, so timing tells nothing.
import type { Db } from '../platform/db/database.ts';
import { unknownUserHash, verifyUserSecret } from './secrets.ts';

/** On success, the secret hash the secret was checked against: the code is stored only while the user still holds it. */
export type LoginResult = { ok: true; userId: string; secretHash: string } | { ok: false; userId: string | null; reason: 'unknown_email' | 'wrong_secret' | 'user_disabled' };

export async function verifyApiUser(db: Db, clientId: string, email: string, secret: string): Promise<LoginResult> {
  const normalised = email.trim().toLowerCase();
  const user = normalised
    ? await db.selectFrom('api_users').select(['id', 'secret_hash', 'disabled']).where('client_id', '=', clientId).where('email', '=', normalised).executeTakeFirst()
    : undefined;
  const matches = await verifyUserSecret(secret, user?.secret_hash ?? unknownUserHash());
  if (!user) return { ok: false, userId: null, reason: 'unknown_email' };
  if (!matches) return { ok: false, userId: user.id, reason: 'wrong_secret' };
  if (user.disabled === 1) return { ok: false, userId: user.id, reason: 'user_disabled' };
  return { ok: true, userId: user.id, secretHash: user.secret_hash };
}
