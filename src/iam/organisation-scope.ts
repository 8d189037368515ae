// How far an action reaches: a console user acts within its own organisation (CONTRACT §6: an id of
// another organisation is "not found", never its data); the operator reaches every organisation.
// Every lookup of a company, client or user by the console goes through here, so the scope is
// checked in the same query that finds the row.
import type { Db } from '../platform/db/database.ts';
import { companyIn } from '../tenancy/companies.ts';
import { notFound } from '../platform/errors.ts';
import { changeEvent, recordAudit, type Actor } from './audit.ts';

/** The operator's reach. A symbol, so no id typed into a form or URL can ever stand for it. */
export const EVERY_ORGANISATION: unique symbol = Symbol('every organisation');

/** An organisation id (a console user's own), or EVERY_ORGANISATION (the operator). */
export type Reach = string | typeof EVERY_ORGANISATION;

export async function requireCompany(db: Db, reach: Reach, companyId: string) {
  const company = await companyIn(db, companyId, reach === EVERY_ORGANISATION ? undefined : reach);
  if (!company) throw notFound(`No company ${companyId}.`);
  return company;
}

export async function requireClient(db: Db, reach: Reach, clientId: string) {
  let query = db
    .selectFrom('api_clients')
    .innerJoin('companies', 'companies.id', 'api_clients.company_id')
    .selectAll('api_clients')
    .select('companies.organisation_id')
    .where('api_clients.id', '=', clientId);
  if (reach !== EVERY_ORGANISATION) query = query.where('companies.organisation_id', '=', reach);
  const client = await query.executeTakeFirst();
  if (!client) throw notFound(`No API client ${clientId}.`);
  return client;
}

export async function requireUser(db: Db, reach: Reach, userId: string) {
  let query = db
    .selectFrom('api_users')
    .innerJoin('api_clients', 'api_clients.id', 'api_users.client_id')
    .innerJoin('companies', 'companies.id', 'api_clients.company_id')
    .select(['api_users.id', 'api_users.client_id', 'api_users.email', 'api_users.disabled', 'companies.organisation_id'])
    .where('api_users.id', '=', userId);
  if (reach !== EVERY_ORGANISATION) query = query.where('companies.organisation_id', '=', reach);
  const user = await query.executeTakeFirst();
  if (!user) throw notFound(`No API user ${userId}.`);
  return user;
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
