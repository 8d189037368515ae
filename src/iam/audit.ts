// The audit log of logins, token events and the operator's changes to clients and users: who (user), which client, from which address, what
// happened and how it ended. Never a secret, a token or a code: `detail` is a short reason code.
import type { Db } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';
import { grouped } from '../platform/db/durability.ts';

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
  /** A CLI or operator-API change to an API Client or API User; `detail` names it. */
  | 'operator_change';

export type AuditOutcome = 'success' | 'failure' | 'throttled' | 'revoked';

export interface AuditEntry {
  event: AuditEvent;
  outcome: AuditOutcome;
  clientId?: string | null;
  userId?: string | null;
  address?: string | null;
  detail?: string | null;
}

/**
 * Stores the entry before it returns; outside a transaction it shares one commit with the entries and
 * grouped writes of the moment (see `grouped`), as the busiest token endpoints write one per request.
 */
export async function recordAudit(db: Db, entry: AuditEntry, now = Date.now()): Promise<void> {
  await grouped(db, (connection) => connection
    .insertInto('audit_log')
    .values({
      id: newId('aud'),
      at: now,
      event: entry.event,
      outcome: entry.outcome,
      client_id: entry.clientId ?? null,
      user_id: entry.userId ?? null,
      address: entry.address ?? null,
      detail: entry.detail ?? null,
    })
    .execute());
}
