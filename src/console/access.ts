// Who may reach which console route, decided once for every route of the console before its handler:
// the session from the cookie, the stage it must be in, the CSRF token of every form, and the role
// (a viewer reads; each POST that changes something is refused to it, its own valid token or not).
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../platform/errors.ts';
import { safeEqual } from '../platform/ids.ts';
import type { LoginCsrf } from '../iam/csrf.ts';
import type { ConsoleSession } from './sessions.ts';

/**
 * `public`: no session needed (sign-in, invitations); `signing-in`: the password was right and the
 * TOTP code is due; `member`: any signed-in person (reading, signing out, confirming identity);
 * `admin`: a change, for admins only.
 */
export type ConsoleAccess = 'public' | 'signing-in' | 'member' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    consoleAccess?: ConsoleAccess;
  }
}

export const CSRF_FIELD = 'csrf_token';

export class ConsoleCsrf {
  readonly #sessionKey: Buffer;
  readonly #anonymous: LoginCsrf;

  /** `anonymous`: the double-submit token of the forms shown before a session exists. */
  constructor(sessionKey: Buffer, anonymous: LoginCsrf) {
    this.#sessionKey = sessionKey;
    this.#anonymous = anonymous;
  }

  #forSession(session: ConsoleSession): string {
    return createHmac('sha256', this.#sessionKey).update(`console-session:${session.tokenHash}`).digest('base64url');
  }

  /** The token for the forms of the page being rendered. */
  issue(request: FastifyRequest, reply: FastifyReply): string {
    return request.consoleSession ? this.#forSession(request.consoleSession) : this.#anonymous.issue(request, reply);
  }

  valid(request: FastifyRequest): boolean {
    const field = (request.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
    if (typeof field !== 'string') return false;
    return request.consoleSession ? safeEqual(this.#forSession(request.consoleSession), field) : this.#anonymous.valid(request, field);
  }
}

export function forbidden(code: string, detail: string): ProblemError {
  return new ProblemError({ status: 403, code, detail });
}

export const EXPIRED_FORM = forbidden('csrf_token_invalid', 'This form has expired or did not come from the console. Go back, reload the page and try again.');
export const READ_ONLY = forbidden('console_read_only', 'Your role is viewer: you can read everything here but change nothing. Ask an admin of your organisation.');

/** Whether the session may use a route of this access level (the CSRF check aside). */
export function admitted(access: ConsoleAccess, session: ConsoleSession | undefined): boolean {
  if (access === 'public') return true;
  if (access === 'signing-in') return session?.stage === 'password';
  return session?.stage === 'active';
}
