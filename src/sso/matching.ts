// Who a provider's verified identity is among the client's API Users (CONTRACT §8): the user already
// linked to (issuer, sub); else the one whose email equals the token's `email`, when the provider
// says it is verified and it lies in one of that provider's own domains — then linked, once. Never
// an unverified email (the "nOAuth" takeover), never another provider's domain, never a new user.
import type { Db } from '../platform/db/database.ts';
import type { VerifiedIdentity } from './relying-party.ts';

export interface MatchProvider {
  id: string;
  issuer: string;
  domains: string[];
}

export type Match = { ok: true; userId: string; linked: boolean } | { ok: false; reason: 'no_matching_user' | 'email_not_verified' | 'email_outside_domains' | 'hosted_domain_mismatch' | 'user_linked_elsewhere' | 'user_disabled'; userId?: string };

/** Google Workspace puts the hosted domain in `hd`; an email alone does not prove the account is the domain's. */
const GOOGLE_ISSUER = 'https://accounts.google.com';

function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
}

async function linkedUser(db: Db, clientId: string, provider: MatchProvider, identity: VerifiedIdentity) {
  return db.selectFrom('sso_links').innerJoin('api_users', 'api_users.id', 'sso_links.user_id')
    .select(['api_users.id', 'api_users.disabled'])
    .where('sso_links.client_id', '=', clientId).where('sso_links.issuer', '=', provider.issuer).where('sso_links.subject', '=', identity.subject)
    .executeTakeFirst();
}

export async function matchApiUser(db: Db, clientId: string, provider: MatchProvider, identity: VerifiedIdentity, now = Date.now()): Promise<Match> {
  if (provider.issuer === GOOGLE_ISSUER && (!identity.hostedDomain || !provider.domains.includes(identity.hostedDomain))) return { ok: false, reason: 'hosted_domain_mismatch' };
  const linked = await linkedUser(db, clientId, provider, identity);
  if (linked) return linked.disabled === 1 ? { ok: false, reason: 'user_disabled', userId: linked.id } : { ok: true, userId: linked.id, linked: false };

  if (!identity.email) return { ok: false, reason: 'no_matching_user' };
  if (!identity.emailVerified) return { ok: false, reason: 'email_not_verified' };
  if (!provider.domains.includes(emailDomain(identity.email))) return { ok: false, reason: 'email_outside_domains' };
  const user = await db.selectFrom('api_users').select(['id', 'disabled']).where('client_id', '=', clientId).where('email', '=', identity.email).executeTakeFirst();
  if (!user) return { ok: false, reason: 'no_matching_user' };
  if (user.disabled === 1) return { ok: false, reason: 'user_disabled', userId: user.id };
  // A user stays linked to one (issuer, sub): the primary key refuses a second link.
  const inserted = await db.insertInto('sso_links')
    .values({ user_id: user.id, provider_id: provider.id, client_id: clientId, issuer: provider.issuer, subject: identity.subject, created_at: now })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) return { ok: false, reason: 'user_linked_elsewhere', userId: user.id };
  return { ok: true, userId: user.id, linked: true };
}
