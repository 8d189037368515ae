// The people of a customer organisation who use the console (CONTRACT §6): invited by the operator
// or by an admin, they accept by setting a password and enrolling a TOTP authenticator; admins change
// roles and remove people. An organisation always keeps at least one admin.
import type { Db } from '../platform/db/database.ts';
import { ProblemError, badRequest, notFound } from '../platform/errors.ts';
import { newId, newSecret, sha256 } from '../platform/ids.ts';
import { TypedEmail } from '../platform/schemas.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';
import { rejectIf, schemaErrors } from '../platform/validation.ts';
import { unknownUserHash, hashUserSecret, verifyUserSecret } from '../iam/secrets.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import { CONSOLE_ROLES, type ConsoleRole, type ConsoleUsersTable } from './tables.ts';
import { matchingStep, newTotpSecret } from './totp.ts';
import { openTotpSecret, sealTotpSecret } from './totp-secrets.ts';

export const INVITATION_TTL_MS = 72 * 60 * 60_000;
const EMAIL = TypedEmail('The person\'s email address: their console sign-in');

export function isConsoleRole(value: unknown): value is ConsoleRole {
  return (CONSOLE_ROLES as readonly unknown[]).includes(value);
}

/** An email as it is kept and as sign-in looks it up, by the same rule as an API User's (white space around it dropped, lower case). */
export function signInEmail(email: string): string {
  return email.trim().toLowerCase();
}

function normaliseEmail(email: string): string {
  rejectIf(schemaErrors(EMAIL, email, '/email'));
  return signInEmail(email);
}

/** A problem with the new password, or undefined when it is acceptable (12 to 256 characters). */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < 12) return 'The password must be at least 12 characters long.';
  if (length > 256) return 'The password must be at most 256 characters long.';
  return undefined;
}

export interface Invitation {
  inviteUrl: string;
  expiresAt: string;
}

/** Said to the person who opens an invitation for an address that has a console account already. */
function addressTaken(email: string): ProblemError {
  return new ProblemError({ code: 'email_taken', detail: `${email} already has a console account, so this invitation cannot be accepted: an address has one console account, in one organisation. Sign in with that account, or ask whoever invited you to invite another address.` });
}

/**
 * `invitedBy` is the inviting console user, or null for the operator. The operator, who sees every
 * organisation, is told at once that the address has a console account. An admin is told only of
 * its own organisation's members: an address with an account in another organisation gets an
 * invitation like any other (the same query, the same answer), and the person learns of the
 * conflict on opening it.
 */
export async function inviteConsoleUser(
  db: Db,
  input: { organisationId: string; email: string; role: ConsoleRole; invitedBy: string | null },
  authUrl: string,
  now: number,
): Promise<Invitation & { email: string }> {
  const email = normaliseEmail(input.email);
  if (!isConsoleRole(input.role)) throw badRequest('validation_failed', 'The role must be admin or viewer.', [{ path: '/role', message: 'must be admin or viewer' }]);
  await requireOrganisation(db, input.organisationId);
  const taken = await db.selectFrom('console_users').select('organisation_id').where('email', '=', email).executeTakeFirst();
  if (taken && input.invitedBy === null) throw new ProblemError({ code: 'email_taken', detail: `${email} already has a console account.` });
  if (taken?.organisation_id === input.organisationId) throw new ProblemError({ code: 'email_taken', detail: `${email} is already a member of your organisation.` });
  const token = newSecret(32);
  const expiresAt = now + INVITATION_TTL_MS;
  await db
    .insertInto('console_invitations')
    .values({ token_hash: sha256(token), id: newId('inv', now), organisation_id: input.organisationId, email, role: input.role, invited_by: input.invitedBy, created_at: now, expires_at: expiresAt, used_at: null, pending_password_hash: null, pending_totp_secret: null })
    .execute();
  return { email, inviteUrl: `${authUrl}/console/invitations/${token}`, expiresAt: new Date(expiresAt).toISOString() };
}

export interface OpenInvitation {
  id: string;
  tokenHash: string;
  organisationId: string;
  email: string;
  role: ConsoleRole;
  invitedBy: string | null;
  /** Sealed; present once the password step is done. */
  pendingTotpSecret: string | null;
  pendingPasswordHash: string | null;
}

/**
 * An invitation that can still be accepted (unused, not expired), by the token of its URL; refused
 * (409 email_taken) when its address has a console account, made before or since the invitation.
 */
export async function openInvitation(db: Db, token: string, now: number): Promise<OpenInvitation | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const row = await db.selectFrom('console_invitations').selectAll().where('token_hash', '=', sha256(token)).executeTakeFirst();
  if (!row || row.used_at !== null || row.expires_at <= now) return undefined;
  if (await hasConsoleAccount(db, row.email)) throw addressTaken(row.email);
  return { id: row.id, tokenHash: row.token_hash, organisationId: row.organisation_id, email: row.email, role: row.role, invitedBy: row.invited_by, pendingTotpSecret: row.pending_totp_secret, pendingPasswordHash: row.pending_password_hash };
}

/** The password step of accepting: keeps the password's hash and a new TOTP secret until the code step. */
export async function choosePassword(db: Db, invitation: OpenInvitation, password: string, box: SecretBox): Promise<string> {
  const secret = newTotpSecret();
  await db
    .updateTable('console_invitations')
    .set({ pending_password_hash: await hashUserSecret(password), pending_totp_secret: sealTotpSecret(box, secret, invitation.email) })
    .where('token_hash', '=', invitation.tokenHash)
    .execute();
  return secret;
}

/**
 * The code step: a right code creates the console user (its step recorded, so the same code cannot
 * sign in again) and uses the invitation up, both in one transaction. Undefined when the code is wrong.
 */
export async function completeInvitation(db: Db, invitation: OpenInvitation, code: string, box: SecretBox, now: number): Promise<{ userId: string } | undefined> {
  if (!invitation.pendingTotpSecret || !invitation.pendingPasswordHash) return undefined;
  const step = await matchingStep(openTotpSecret(box, invitation.pendingTotpSecret, invitation.email), code, now);
  if (step === undefined) return undefined;
  const userId = newId('cus', now);
  return db.transaction().execute(async (trx) => {
    const used = await trx.updateTable('console_invitations').set({ used_at: now }).where('token_hash', '=', invitation.tokenHash).where('used_at', 'is', null).executeTakeFirst();
    if (used.numUpdatedRows === 0n) return undefined;
    if (await hasConsoleAccount(trx, invitation.email)) throw addressTaken(invitation.email);
    await trx
      .insertInto('console_users')
      .values({ id: userId, organisation_id: invitation.organisationId, email: invitation.email, role: invitation.role, password_hash: invitation.pendingPasswordHash ?? '', totp_secret: invitation.pendingTotpSecret ?? '', last_totp_step: step, created_at: now })
      .execute();
    return { userId };
  });
}

async function hasConsoleAccount(db: Db, email: string): Promise<boolean> {
  return (await db.selectFrom('console_users').select('id').where('email', '=', email).executeTakeFirst()) !== undefined;
}

/**
 * The console user with this email, if any (a failure is audited in its organisation), and whether
 * `password` is its password; the same work is done for an unknown email.
 */
export async function checkPassword(db: Db, email: string, password: string): Promise<{ user: ConsoleUsersTable | undefined; matches: boolean }> {
  const user = await db.selectFrom('console_users').selectAll().where('email', '=', signInEmail(email)).executeTakeFirst();
  const ok = await verifyUserSecret(password.slice(0, 1024), user?.password_hash ?? unknownUserHash());
  return { user, matches: ok && user !== undefined };
}

export async function consoleUserById(db: Db, userId: string): Promise<ConsoleUsersTable | undefined> {
  return db.selectFrom('console_users').selectAll().where('id', '=', userId).executeTakeFirst();
}

export interface ConsoleUserView {
  id: string;
  email: string;
  role: ConsoleRole;
  createdAt: number;
}

export async function listConsoleUsers(db: Db, organisationId: string): Promise<ConsoleUserView[]> {
  const rows = await db.selectFrom('console_users').select(['id', 'email', 'role', 'created_at']).where('organisation_id', '=', organisationId).orderBy('email').execute();
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, createdAt: r.created_at }));
}

export interface PendingInvitationView {
  email: string;
  role: ConsoleRole;
  expiresAt: number;
}

/** Newest first: by created_at, then id (ids made in one millisecond increase, ids.ts). */
export async function listPendingInvitations(db: Db, organisationId: string, now: number): Promise<PendingInvitationView[]> {
  const rows = await db
    .selectFrom('console_invitations')
    .select(['email', 'role', 'expires_at'])
    .where('organisation_id', '=', organisationId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({ email: r.email, role: r.role, expiresAt: r.expires_at }));
}

async function requireMember(db: Db, organisationId: string, userId: string): Promise<ConsoleUsersTable> {
  const user = await consoleUserById(db, userId);
  if (!user || user.organisation_id !== organisationId) throw notFound(`No console user ${userId}.`);
  return user;
}

async function otherAdmins(db: Db, organisationId: string, userId: string): Promise<number> {
  const row = await db
    .selectFrom('console_users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organisation_id', '=', organisationId)
    .where('role', '=', 'admin')
    .where('id', '<>', userId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

const LAST_ADMIN = 'An organisation keeps at least one admin: make someone else admin first.';

export async function changeConsoleRole(db: Db, organisationId: string, userId: string, role: ConsoleRole): Promise<ConsoleUsersTable> {
  const user = await requireMember(db, organisationId, userId);
  if (!isConsoleRole(role)) throw badRequest('validation_failed', 'The role must be admin or viewer.');
  if (user.role === 'admin' && role !== 'admin' && (await otherAdmins(db, organisationId, userId)) === 0) throw new ProblemError({ code: 'last_admin', detail: LAST_ADMIN });
  await db.updateTable('console_users').set({ role }).where('id', '=', userId).execute();
  return { ...user, role };
}

/** Removes a console user and ends its sessions at once. */
export async function removeConsoleUser(db: Db, organisationId: string, userId: string): Promise<ConsoleUsersTable> {
  const user = await requireMember(db, organisationId, userId);
  if (user.role === 'admin' && (await otherAdmins(db, organisationId, userId)) === 0) throw new ProblemError({ code: 'last_admin', detail: LAST_ADMIN });
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
    await trx.deleteFrom('console_users').where('id', '=', userId).execute();
  });
  return user;
}
