// How far an action reaches: a console user acts within its own organisation (CONTRACT §6: an id of
// another organisation is "not found", never its data); the operator reaches every organisation.
// Every lookup of a company, client or user by the console goes through here, so the scope is
// checked before any row is used; which organisation a company belongs to is tenancy's to tell
// (companyIn), so these queries join no companies table.
import type { Db } from '../platform/db/database.ts';
import { companyIn } from '../tenancy/companies.ts';
import { notFound } from '../platform/errors.ts';
import { changeEvent, recordAudit, type Actor } from './audit.ts';

/** The operator's reach. A symbol, so no id typed into a form or URL can ever stand for it. */
export const EVERY_ORGANISATION: unique symbol = Symbol('every organisation');

/** An organisation id (a console user's own), or EVERY_ORGANISATION (the operator). */
export type Reach = string | typeof EVERY_ORGANISATION;

/** The company if it lies within `reach`. */
function companyWithin(db: Db, reach: Reach, companyId: string) {
  return companyIn(db, companyId, reach === EVERY_ORGANISATION ? undefined : reach);
}

export async function requireCompany(db: Db, reach: Reach, companyId: string) {
  const company = await companyWithin(db, reach, companyId);
  if (!company) throw notFound(`No company ${companyId}.`);
  return company;
}

export async function requireClient(db: Db, reach: Reach, clientId: string) {
  const client = await db.selectFrom('api_clients').selectAll().where('id', '=', clientId).executeTakeFirst();
  const company = client && (await companyWithin(db, reach, client.company_id));
  if (!client || !company) throw notFound(`No API client ${clientId}.`);
  return { ...client, organisation_id: company.organisation_id };
}

export async function requireUser(db: Db, reach: Reach, userId: string) {
  const user = await db
    .selectFrom('api_users')
    .innerJoin('api_clients', 'api_clients.id', 'api_users.client_id')
    .select(['api_users.id', 'api_users.client_id', 'api_users.email', 'api_users.disabled', 'api_clients.company_id'])
    .where('api_users.id', '=', userId)
    .executeTakeFirst();
  const company = user && (await companyWithin(db, reach, user.company_id));
  if (!user || !company) throw notFound(`No API user ${userId}.`);
  return { id: user.id, client_id: user.client_id, email: user.email, disabled: user.disabled, organisation_id: company.organisation_id };
}

export interface ChangeTarget {
  organisationId: string;
  clientId?: string;
  userId?: string;
}

/** Every change to who may get tokens is written to the audit log, beside the change, with its actor. */
export function auditChange(db: Db, actor: Actor, detail: string, target: ChangeTarget, context?: Record<string, unknown>, now = Date.now()): Promise<void> {
  return recordAudit(db, {
    event: changeEvent(actor),
    outcome: 'success',
    organisationId: target.organisationId,
    clientId: target.clientId ?? null,
    userId: target.userId ?? null,
    detail,
    actor,
    context: context ?? null,
  }, now);
}

/**
 * The reach of an action whose caller may name an organisation: that organisation, or, for the
 * operator alone, every one. A console user's action without its organisation is a programming error.
 */
export function reachOf(actor: Actor, organisationId: string | undefined): Reach {
  if (organisationId !== undefined) return organisationId;
  if (actor.kind === 'operator') return EVERY_ORGANISATION;
  throw new Error('A console user acts within its organisation: pass organisationId.');
}
