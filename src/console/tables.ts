// Row types of the console tables (migration 0008; 0015 adds invitation ids) and the roles a console user can have. Instants are epoch milliseconds.

export const CONSOLE_ROLES = ['admin', 'viewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export interface ConsoleUsersTable {
  id: string;
  organisation_id: string;
  email: string;
  role: ConsoleRole;
  /** scrypt$N$r$p$salt$hash */
  password_hash: string;
  /** The base32 TOTP secret, sealed with the secret box, bound to the email (see totp-secrets.ts). */
  totp_secret: string;
  /** The last RFC 6238 time step accepted for this person: a step is accepted once. */
  last_totp_step: number;
  created_at: number;
}

export interface ConsoleInvitationsTable {
  /** SHA-256 of the token in the invitation URL. */
  token_hash: string;
  /** From ids.ts (migration 0015): breaks a tie on created_at in the order the invitations were made. */
  id: string;
  organisation_id: string;
  email: string;
  role: ConsoleRole;
  /** The inviting console user; null when the operator invited. */
  invited_by: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** Set by the password step of accepting, consumed by the TOTP step. */
  pending_password_hash: string | null;
  pending_totp_secret: string | null;
}

export interface ConsoleSessionsTable {
  /** SHA-256 of the cookie's token. */
  token_hash: string;
  user_id: string;
  /** `password`: the password was right, the TOTP code is still due; `active`: signed in. */
  stage: 'password' | 'active';
  created_at: number;
  last_seen_at: number;
  /** Last time password and TOTP were both checked (sign-in or step-up). */
  authenticated_at: number;
}

export interface ConsoleTables {
  console_users: ConsoleUsersTable;
  console_invitations: ConsoleInvitationsTable;
  console_sessions: ConsoleSessionsTable;
}

declare module '../platform/db/schema.ts' {
  interface Database extends ConsoleTables {}
}
