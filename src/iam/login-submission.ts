// The login form's POST (contract: identity and access, "Authorize"; CONTRACT §8 for the identifier
// step) as a list of small named checks, node-oidc-provider style: each either answers — an outcome
// the route turns into a page or a redirect — or passes the submission on to the next. A penalty in
// force is thrown as the 429 problem (an HTML page on this route). The route has already re-checked
// the authorization request and asked the federation what the client's page is.
import type { Db } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { tooManyAttempts } from '../platform/errors.ts';
import { recordAudit } from './audit.ts';
import { withParams, type AuthorizationRequest } from './authorize-request.ts';
import { issueAuthorizationCode } from './codes.ts';
import type { EmailRoute, FederatedLogin } from './federation.ts';
import { verifyApiUser } from './login.ts';
import type { Throttle } from './throttle.ts';

const GENERIC_FAILURE = 'The email or secret is not correct.';
const EXPIRED_FORM = 'This sign-in form has expired. Please sign in again.';
const SSO_ENFORCED = 'Your organisation signs you in through its own identity provider: enter your email to continue there.';
const SSO_WITHOUT_GRANT = 'Your organisation signs you in through its own identity provider only, and single sign-on is not enabled for this application. Ask your administrator to request the sso grant for it.';

/** What the route answers: a redirect (to the client or to a provider), or one of the two pages again. */
export type LoginOutcome =
  | { answer: 'redirect'; to: string }
  | { answer: 'secret_form' | 'identifier'; status: number; email: string; message?: string };

export interface LoginSubmission {
  auth: AuthorizationRequest;
  login: FederatedLogin;
  email: string;
  /** Undefined on the identifier step's form, which has no secret input. */
  secret: string | undefined;
  csrfValid: boolean;
  address: string;
  /** Where an email goes (the federation, bound to the browser); undefined without SSO. */
  routeEmail: ((email: string) => Promise<EmailRoute>) | undefined;
}

export interface LoginDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'issuer' | 'authCodeTtl'>;
  throttle: Throttle;
}

type LoginCheck = (submission: LoginSubmission, deps: LoginDeps) => Promise<LoginOutcome | undefined>;

/** The identifier step's form has no secret input: its email only routes (CONTRACT §8). */
function identifying({ login, secret }: LoginSubmission): boolean {
  return login.identifierFirst && secret === undefined;
}

function who({ auth, address }: LoginSubmission): { clientId: string; address: string } {
  return { clientId: auth.client.id, address };
}

/** The page the submission came from, again. */
function samePage(submission: LoginSubmission, status: number, message: string): LoginOutcome {
  return { answer: identifying(submission) ? 'identifier' : 'secret_form', status, email: submission.email, message };
}

const csrfTokenValid: LoginCheck = async (submission, { db }) => {
  if (submission.csrfValid) return undefined;
  await recordAudit(db, { event: 'login', outcome: 'failure', ...who(submission), detail: 'csrf_token_invalid' });
  return samePage(submission, 403, EXPIRED_FORM);
};

/**
 * Per client AND address: the client id and redirect URI are public, so a budget per client alone
 * would let anyone use up a client's logins (contract: identity and access, "Rate limits"). The
 * login page's GET spends from the same budget.
 */
export async function limitLogins(throttle: Throttle, clientId: string, address: string): Promise<void> {
  const verdict = await throttle.limit('login', clientId, address);
  if (verdict) throw tooManyAttempts(verdict.retryAfter, 'sign-in attempts');
}

const withinLoginLimit: LoginCheck = async (submission, { throttle }) => {
  await limitLogins(throttle, submission.auth.client.id, submission.address);
  return undefined;
};

/** The email only routes; the attempt is counted where a credential is checked (below, or at the SSO callback). */
const emailRouted: LoginCheck = async (submission) => {
  if (!identifying(submission) || !submission.routeEmail) return undefined;
  const route = await submission.routeEmail(submission.email);
  if (route.to === 'provider') return { answer: 'redirect', to: route.url };
  if (route.to === 'refused') return { answer: 'identifier', status: route.status, email: submission.email, message: route.message };
  return { answer: 'secret_form', status: 200, email: submission.email };
};

/** Reserved before the (slow) secret check, so parallel guesses cannot dodge the penalty. */
const attemptReserved: LoginCheck = async (submission, { db, throttle }) => {
  const blocked = await throttle.attempt(submission.auth.client.id, submission.address);
  if (!blocked) return undefined;
  await recordAudit(db, { event: 'login', outcome: 'throttled', ...who(submission) });
  throw tooManyAttempts(blocked.retryAfter, 'sign-in attempts');
};

/** Where the organisation enforces SSO, the API User's secret does not sign in (CONTRACT §8). */
const secretAllowed: LoginCheck = async (submission, { db }) => {
  if (submission.login.secretAllowed) return undefined;
  await recordAudit(db, { event: 'login', outcome: 'failure', ...who(submission), detail: 'sso_enforced' });
  const { email, login } = submission;
  return login.identifierFirst ? { answer: 'identifier', status: 403, email, message: SSO_ENFORCED } : { answer: 'secret_form', status: 403, email, message: SSO_WITHOUT_GRANT };
};

/**
 * The secret checked, and a code for the client. A secret reset (or the user disabled) during the
 * slow check refuses the code: the login fails as with a wrong secret, and counts as one.
 */
const secretSignsIn: LoginCheck = async (submission, { db, clock, config, throttle }) => {
  const { auth, email } = submission;
  const verified = await verifyApiUser(db, auth.client.id, email, submission.secret ?? '');
  const now = clock.now();
  const code = verified.ok
    ? await issueAuthorizationCode(
      db,
      { clientId: auth.client.id, userId: verified.userId, redirectUri: auth.redirectUri, nonce: auth.nonce, codeChallenge: auth.codeChallenge, authTime: now, proof: { secretHash: verified.secretHash } },
      config.authCodeTtl,
      now,
    )
    : undefined;
  if (code === undefined) {
    await recordAudit(db, { event: 'login', outcome: 'failure', ...who(submission), userId: verified.userId, detail: verified.ok ? 'secret_changed' : verified.reason });
    return { answer: 'secret_form', status: 401, email, message: GENERIC_FAILURE };
  }
  await throttle.succeeded(auth.client.id, submission.address);
  await recordAudit(db, { event: 'login', outcome: 'success', ...who(submission), userId: verified.userId });
  return { answer: 'redirect', to: withParams(auth.redirectUri, { code, state: auth.state, iss: config.issuer }) };
};

/** In this order; the last one always answers. */
const LOGIN_CHECKS: readonly LoginCheck[] = [csrfTokenValid, withinLoginLimit, emailRouted, attemptReserved, secretAllowed, secretSignsIn];

export async function submitLogin(submission: LoginSubmission, deps: LoginDeps): Promise<LoginOutcome> {
  for (const check of LOGIN_CHECKS) {
    const outcome = await check(submission, deps);
    if (outcome) return outcome;
  }
  throw new Error('The last login check always answers.');
}
