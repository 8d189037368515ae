// Running an API User (CONTRACT §5, §6): disabling and re-enabling, a new secret, ending its
// sessions. Each ends what it must (grants, codes not yet exchanged) in the same transaction as the
// change and its audit entry; a console user reaches only its organisation's users.
import type { Db } from '../platform/db/database.ts';
import { generateUserSecret, hashUserSecret } from './secrets.ts';
import { revokeGrants, voidPendingCodes } from './grants.ts';
import type { Actor } from './audit.ts';
import { auditChange, requireUser, type Reach } from './organisation-scope.ts';

/** Disabling revokes the user's grants and pending codes; enabling brings none of them back. */
export async function setUserDisabled(db: Db, reach: Reach, userId: string, disabled: boolean, actor: Actor): Promise<{ userId: string; disabled: boolean; revokedGrants: string[] }> {
  const user = await requireUser(db, reach, userId);
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('api_users').set({ disabled: disabled ? 1 : 0 }).where('id', '=', user.id).execute();
    await auditChange(trx, actor, disabled ? 'user_disabled' : 'user_enabled', { organisationId: user.organisation_id, clientId: user.client_id, userId: user.id });
    if (!disabled) return { userId: user.id, disabled, revokedGrants: [] };
    await voidPendingCodes(trx, { userId: user.id });
    return { userId: user.id, disabled, revokedGrants: await revokeGrants(trx, { userId: user.id }, 'user_disabled') };
  });
}

/** A new generated secret (returned only here); the old one stops at once and every grant of the user is revoked. */
export async function resetUserSecret(db: Db, reach: Reach, userId: string, actor: Actor): Promise<{ userId: string; email: string; secret: string; revokedGrants: string[] }> {
  const user = await requireUser(db, reach, userId);
  const secret = generateUserSecret();
  const secretHash = await hashUserSecret(secret);
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('api_users').set({ secret_hash: secretHash }).where('id', '=', user.id).execute();
    await voidPendingCodes(trx, { userId: user.id });
    const revokedGrants = await revokeGrants(trx, { userId: user.id }, 'user_secret_reset');
    await auditChange(trx, actor, 'user_secret_reset', { organisationId: user.organisation_id, clientId: user.client_id, userId: user.id });
    return { userId: user.id, email: user.email, secret, revokedGrants };
  });
}

/** Signs the user out everywhere: every grant (and so every token) and every code not yet exchanged. */
export async function revokeUserSessions(db: Db, reach: Reach, userId: string, actor: Actor): Promise<{ userId: string; revokedGrants: string[] }> {
  const user = await requireUser(db, reach, userId);
  return db.transaction().execute(async (trx) => {
    await voidPendingCodes(trx, { userId: user.id });
    const revokedGrants = await revokeGrants(trx, { userId: user.id }, 'user_sessions_revoked');
    await auditChange(trx, actor, 'user_sessions_revoked', { organisationId: user.organisation_id, clientId: user.client_id, userId: user.id }, { revokedGrants: revokedGrants.length });
    return { userId: user.id, revokedGrants };
  });
}
