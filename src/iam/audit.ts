// The audit log of logins, token events and every change to clients and users (by the operator or a
// console user): who acted, on which organisation, client and user, from which address, what
// happened and how it ended. Never a secret, a token or a code: `detail` is a short reason code.
import type { Db } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';
import { grouped, type PendingInsert } from '../platform/db/durability.ts';

export type AuditEvent =
  | 'login'
  | 'client_authentication'
  | 'token_issued'
  | 'token_refreshed'
  | 'refresh_token_reuse'
  | 'code_replay'
  | 'token_revoked'
  /** A sign-in through the organisation's OpenID provider (CONTRACT §8); failures name the reason in `detail`. */
  | 'sso_login'
  | 'sso_login_failed'
  /** A CLI or operator-API change (an organisation, company, import, API Client or API User); `detail` names it. */
  | 'operator_change'
  /** The same changes made by a console user of the organisation (CONTRACT §6). */
  | 'console_change'
  // Console sign-ins and SSO logins are recorded by their features under their own names.
  | (string & {});

export type AuditOutcome = 'success' | 'failure' | 'throttled' | 'revoked';

/** Who made a change: the operator (CLI, operator API) or a console user of the organisation. */
export type Actor = { kind: 'operator' } | { kind: 'console_user'; id: string; email: string };

export const OPERATOR: Actor = { kind: 'operator' };

export interface AuditEntry {
  event: AuditEvent;
  outcome: AuditOutcome;
  /** Derived from the client (or the user's client) when not given. */
  organisationId?: string | null;
  clientId?: string | null;
  userId?: string | null;
  address?: string | null;
  detail?: string | null;
  actor?: Actor | null;
  /** Further facts, never secret: a second actor, a grant, an expiry. */
  context?: Record<string, unknown> | null;
}

/** The audit event of a change: `operator_change` or `console_change`, by who made it. */
export function changeEvent(actor: Actor): AuditEvent {
  return actor.kind === 'operator' ? 'operator_change' : 'console_change';
}

/**
 * Stores the entry before it returns; outside a transaction it shares one commit with the entries and
 * grouped writes of the moment (see `grouped`), as the busiest token endpoints write one per request.
 */
export async function recordAudit(db: Db, entry: AuditEntry, now = Date.now()): Promise<void> {
  await grouped(db, (connection) => auditInsert(entry, now)(connection).execute());
}

/**
 * The insert of an audit entry, not yet run (see `bookkeeping`). The organisation, when the caller
 * does not name it, is looked up in the same statement.
 */
export function auditInsert(entry: AuditEntry, now: number): PendingInsert {
  const clientId = entry.clientId ?? null;
  const userId = entry.userId ?? null;
  const actor = entry.actor ?? null;
  return (db) => db
    .insertInto('audit_log')
    .values({
      id: newId('aud'),
      at: now,
      event: entry.event,
      outcome: entry.outcome,
      client_id: clientId,
      user_id: userId,
      address: entry.address ?? null,
      detail: entry.detail ?? null,
      organisation_id: entry.organisationId ?? (clientId === null && userId === null ? null : db
        .selectFrom('api_clients')
        // A subquery of the one INSERT the token path writes (docs/architecture.md, "Joins of companies").
        .innerJoin('companies', 'companies.id', 'api_clients.company_id')
        .select('companies.organisation_id')
        .where('api_clients.id', '=', clientId ?? db.selectFrom('api_users').select('api_users.client_id').where('api_users.id', '=', userId ?? ''))
        .limit(1)),
      actor_kind: actor?.kind ?? null,
      actor_id: actor?.kind === 'console_user' ? actor.id : null,
      actor_email: actor?.kind === 'console_user' ? actor.email : null,
      context: entry.context ? JSON.stringify(entry.context) : null,
    });
}
