// The operator inviting a person to an organisation's console (CONTRACT §5, §6): the first admin, or
// anyone else. One function for `wfs invite-console-user` and the operator API, so both check, store
// and audit alike; the invitation link is a credential, shown once.
import type { Db } from '../platform/db/database.ts';
import { OPERATOR } from '../iam/audit.ts';
import { auditConsole } from './audit.ts';
import { inviteConsoleUser } from './people.ts';
import type { ConsoleRole } from './tables.ts';

export interface OperatorInvitation {
  organisationId: string;
  email: string;
  role: ConsoleRole;
}

/** Invites the person; `{inviteUrl, expiresAt}` as `wfs invite-console-user --json` prints it. */
export async function inviteAsOperator(db: Db, input: OperatorInvitation, authUrl: string, now = Date.now()): Promise<{ inviteUrl: string; expiresAt: string; email: string }> {
  const invitation = await inviteConsoleUser(db, { ...input, invitedBy: null }, authUrl, now);
  await auditConsole(db, { event: 'operator_change', outcome: 'success', organisationId: input.organisationId, actor: OPERATOR, detail: 'console_user_invited', context: { email: invitation.email, role: input.role } }, now);
  return invitation;
}
