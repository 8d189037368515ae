// TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps) through otplib. A code is accepted for the step
// it was made in or the one before (a code typed as the step turns), and only for a step later than
// the last one this person used: the conditional update makes that hold across instances too.
import { generateSecret, generateURI, verify } from 'otplib';
import type { Db } from '../platform/db/database.ts';

const PERIOD_SECONDS = 30;
const CODE = /^\d{6}$/;

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: 'WFS Console', label: email, secret, algorithm: 'sha1', digits: 6, period: PERIOD_SECONDS });
}

/** The time step a code matches at `now` (ms), or undefined; `afterStep` refuses that step and older. */
export async function matchingStep(secret: string, code: string, now: number, afterStep = -1): Promise<number | undefined> {
  const token = code.replace(/\s+/g, '');
  if (!CODE.test(token)) return undefined;
  const result = await verify({ secret, token, epoch: Math.floor(now / 1000), epochTolerance: [PERIOD_SECONDS, 0], ...(afterStep >= 0 ? { afterTimeStep: afterStep } : {}) });
  // The functional API types HOTP and TOTP results as one; a TOTP match always carries its step.
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}

/**
 * Checks a console user's code and records its step in one conditional update, so two requests with
 * the same code (on two instances, say) cannot both pass.
 */
export async function acceptUserCode(db: Db, user: { id: string; last_totp_step: number }, secret: string, code: string, now: number): Promise<boolean> {
  const step = await matchingStep(secret, code, now, user.last_totp_step);
  if (step === undefined) return false;
  const updated = await db
    .updateTable('console_users')
    .set({ last_totp_step: step })
    .where('id', '=', user.id)
    .where('last_totp_step', '<', step)
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n;
}
