// The console's sign-in penalty policy (CONTRACT §6: failed sign-ins are penalised like logins, §2
// Rate limits, per address), over the identity feature's Throttle. Failed passwords and TOTP codes
// (sign-in, step-up, enrolment) are counted per account and address where logins count per client
// and address (the account is what is attacked); password failures also count toward their
// address's own, higher limit, against one address trying many emails.
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db/database.ts';
import { tooManyAttempts } from '../platform/errors.ts';
import type { Throttle } from '../iam/throttle.ts';
import { auditConsole, type ConsoleAuditEntry } from './audit.ts';
import { signInEmail } from './people.ts';

/**
 * What an attempt checks, and whose failures it counts toward: the sign-in's password, by the typed
 * email (an unknown one too, under its own key, so answers do not tell whether it has an account); or
 * a TOTP code (with a password on the step-up page), by the console user or the invitation (`subject`).
 */
export type AttemptTarget = { step: 'password'; email: string } | { step: 'code'; subject: string };

/** A failed attempt's audit entry: the account's organisation and the account as actor, or nulls for an unknown email. */
export type FailedAttempt = Pick<ConsoleAuditEntry, 'event' | 'organisationId' | 'actor' | 'detail'>;

/**
 * Failed passwords from one address, whatever the email, before a penalty. Only failures count (each
 * recorded once its check failed) and nothing resets the count (else any account's sign-in would):
 * successes never add to it, so an office behind one address is not locked out by its own sign-ins,
 * and a sprayer is stopped after 50 wrong guesses, then a doubling few. Guesses sent at the same moment
 * may pass before their failures are recorded; the per-account count still holds each account.
 */
export const ADDRESS_FAILURES_BEFORE_PENALTY = 50;
const ADDRESS_KEY = 'console-password-address';

/** The throttle key of the account an attempt is made on (the throttle counts per key and address). */
function accountKey(target: AttemptTarget): string {
  return target.step === 'password' ? `console-password:${signInEmail(target.email)}` : `console:${target.subject}`;
}

export class SignInPenalties {
  readonly #throttle: Throttle;
  readonly #db: Db;
  readonly #clock: Clock;

  constructor(throttle: Throttle, deps: { db: Db; clock: Clock }) {
    this.#throttle = throttle;
    this.#db = deps.db;
    this.#clock = deps.clock;
  }

  /**
   * Reserves an attempt (counted as failed) before its check; 429 while a penalty is in force.
   * The sign-in's two steps count apart (`target.step`). Counted together, the correct password after
   * a penalty would start the next one, and refuse the correct code that follows it with 429.
   */
  async attempt(address: string, target: AttemptTarget): Promise<void> {
    // The address first, only looked at (its count is of failed passwords, recorded in `failed`): an
    // attempt its penalty refuses is not counted against the account.
    const blocked = (target.step === 'password' ? await this.#throttle.penalised(ADDRESS_KEY, address) : undefined)
      ?? await this.#throttle.attempt(accountKey(target), address);
    if (blocked) throw tooManyAttempts(blocked.retryAfter, 'failed attempts');
  }

  /**
   * A reserved attempt failed its check: audits `entry` as a failure and, when the failure started a
   * penalty, that too, once (the attempts the penalty refuses are not audited, so a flood of them
   * writes nothing).
   */
  async failed(address: string, target: AttemptTarget, entry: FailedAttempt): Promise<void> {
    const audit = { ...entry, address };
    await auditConsole(this.#db, { ...audit, outcome: 'failure' }, this.#clock.now());
    if (target.step === 'password') await this.#throttle.attempt(ADDRESS_KEY, address, ADDRESS_FAILURES_BEFORE_PENALTY);
    // No penalty was in force when the attempt was reserved, so one in force now was started by this
    // failure (or by one running beside it).
    const [account, addressPenalty] = await Promise.all([
      this.#throttle.penalised(accountKey(target), address),
      target.step === 'password' ? this.#throttle.penalised(ADDRESS_KEY, address) : undefined,
    ]);
    const started = (retryAfter: number) => ({ outcome: 'throttled' as const, context: { step: target.step, retryAfter } });
    if (account) await auditConsole(this.#db, { ...audit, ...started(account.retryAfter), detail: 'penalty_started' }, this.#clock.now());
    // The address's penalty is no one account's business: it goes where unknown emails' failures go.
    if (addressPenalty) await auditConsole(this.#db, { ...audit, organisationId: null, actor: null, ...started(addressPenalty.retryAfter), detail: 'address_penalty_started' }, this.#clock.now());
  }

  /**
   * The account signed in or stepped up: forgets its failures of both steps from this address. A
   * correct password alone forgets nothing (knowing it buys no more guesses at the code), and no
   * success forgets the address's own count or another account's (an admin of one organisation
   * cannot lift a penalty on a person of another with its own step-ups).
   */
  async succeeded(address: string, account: { id: string; email: string }): Promise<void> {
    const keys = [accountKey({ step: 'password', email: account.email }), accountKey({ step: 'code', subject: account.id })];
    await Promise.all(keys.map((key) => this.#throttle.succeeded(key, address)));
  }
}
