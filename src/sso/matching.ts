// Who a provider's verified identity is among the client's API Users (CONTRACT §8): the user already
// linked to (issuer, sub); else the one whose email equals the token's `email`, when the provider
// says it is verified and it lies in one of that provider's own domains — then linked, once. Never
// an unverified email (the "nOAuth" takeover), never another provider's domain, never a new user.
// The link is stored only while the provider is still there: a provider removed while the callback
// talked to it links nobody (`provider_removed`).
import { onPostgres, type Db } from '../platform/db/database.ts';
import type { VerifiedIdentity } from './relying-party.ts';

export interface MatchProvider {
  id: string;
  issuer: string;
  domains: string[];
}

export type Match = { ok: true; userId: string; linked: boolean } | { ok: false; reason: 'no_matching_user' | 'email_not_verified' | 'email_outside_domains' | 'hosted_domain_mismatch' | 'user_linked_elsewhere' | 'user_disabled' | 'provider_removed'; userId?: string };

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
  if (await linkUser(db, { userId: user.id, clientId, provider, subject: identity.subject }, now)) return { ok: true, userId: user.id, linked: true };
  return { ok: false, reason: (await providerExists(db, provider.id)) ? 'user_linked_elsewhere' : 'provider_removed', userId: user.id };
}

/**
 * Links the user to the provider's (issuer, sub); false when it is not stored. A user stays linked to
 * one (issuer, sub): the keys refuse a second link. One conditional insert that selects the provider's
 * row, so a provider removed meanwhile gets no link (instead of a foreign-key error); on PostgreSQL it
 * holds a share lock on that row, so a removal under way (which locks the row first, providers.ts)
 * either waits for the link and deletes it, or commits first and the insert finds no row.
 */
async function linkUser(db: Db, link: { userId: string; clientId: string; provider: MatchProvider; subject: string }, now: number): Promise<boolean> {
  const inserted = await db.insertInto('sso_links')
    .columns(['user_id', 'provider_id', 'client_id', 'issuer', 'subject', 'created_at'])
    .expression((eb) => {
      const provider = eb.selectFrom('sso_providers as p')
        .select([eb.val(link.userId).as('user_id'), 'p.id as provider_id', eb.val(link.clientId).as('client_id'), eb.val(link.provider.issuer).as('issuer'), eb.val(link.subject).as('subject'), eb.val(now).as('created_at')])
        .where('p.id', '=', link.provider.id);
      return onPostgres(db) ? provider.forShare() : provider;
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
}

async function providerExists(db: Db, providerId: string): Promise<boolean> {
  return (await db.selectFrom('sso_providers').select('id').where('id', '=', providerId).executeTakeFirst()) !== undefined;
}
