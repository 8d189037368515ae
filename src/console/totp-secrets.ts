// TOTP secrets must be readable by the service (it computes the expected code), so they are sealed
// rather than hashed: with the service's secret box (SECRETS_KEY, src/platform/sealed-secrets.ts),
// bound to the person's email. A copy of the console tables alone gives away no one's authenticator,
// a sealed secret moved to another person's row does not open, and the key rotates with SECRETS_KEY
// (`wfs reseal-secrets` seals the stored ones again).
import type { Db } from '../platform/db/database.ts';
import { resealStale, type SecretBox } from '../platform/sealed-secrets.ts';

/** The additional data a person's TOTP secret is sealed with: invitation and account share the email. */
export function totpContext(email: string): string {
  return `console_totp:${email}`;
}

/** Seals again with the current key every TOTP secret (enrolled or pending) sealed with an older one. */
export async function resealTotpSecrets(db: Db, box: SecretBox): Promise<number> {
  const users = await db.selectFrom('console_users').select(['id', 'email', 'totp_secret']).execute();
  const invitations = await db.selectFrom('console_invitations').select(['token_hash', 'email', 'pending_totp_secret']).where('pending_totp_secret', 'is not', null).execute();
  const enrolled = await resealStale(box, users, {
    sealed: (user) => user.totp_secret,
    context: (user) => totpContext(user.email),
    store: (user, value) => db.updateTable('console_users').set({ totp_secret: value }).where('id', '=', user.id).where('totp_secret', '=', user.totp_secret).execute(),
  });
  const pending = await resealStale(box, invitations, {
    sealed: (invitation) => invitation.pending_totp_secret,
    context: (invitation) => totpContext(invitation.email),
    store: (invitation, value) =>
      db.updateTable('console_invitations').set({ pending_totp_secret: value }).where('token_hash', '=', invitation.token_hash).where('pending_totp_secret', '=', invitation.pending_totp_secret).execute(),
  });
  return enrolled + pending;
}

export function sealTotpSecret(box: SecretBox, secret: string, email: string): string {
  return box.seal(secret, totpContext(email));
}

export function openTotpSecret(box: SecretBox, sealed: string, email: string): string {
  return box.open(sealed, totpContext(email));
}
