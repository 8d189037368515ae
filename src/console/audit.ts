// Every console action lands in the organisation's audit log with the console user as actor
// (CONTRACT §6); sign-ins are recorded with the address they came from. Changes to clients and users
// are audited by the identity core itself (it takes the actor); this covers the console's own events.
import type { Db } from '../platform/db/database.ts';
import { recordAudit, type Actor, type AuditOutcome } from '../iam/audit.ts';

export type ConsoleActor = Extract<Actor, { kind: 'console_user' }>;

export interface ConsoleAuditEntry {
  event: 'console_sign_in' | 'console_sign_out' | 'console_step_up' | 'console_invitation_accepted' | 'console_change' | 'operator_change';
  outcome: AuditOutcome;
  organisationId: string | null;
  /** Null for a failed sign-in of an unknown address; the operator for its invitations. */
  actor: Actor | null;
  address?: string | null;
  /** What happened, as a short code: `console_user_invited`, `bad_code`, … */
  detail?: string | null;
  context?: Record<string, unknown>;
}

export function actorOf(user: { id: string; email: string }): ConsoleActor {
  return { kind: 'console_user', id: user.id, email: user.email };
}

export async function auditConsole(db: Db, entry: ConsoleAuditEntry, now: number): Promise<void> {
  await recordAudit(db, { event: entry.event, outcome: entry.outcome, organisationId: entry.organisationId, actor: entry.actor, address: entry.address ?? null, detail: entry.detail ?? null, context: entry.context ?? null }, now);
}
