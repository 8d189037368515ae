// Finishing an SSO sign-in when the provider sends the browser back (CONTRACT §8), as a list of small
// named checks, node-oidc-provider style: each fills in what it learnt or fails the sign-in with a
// reason; the last issues the client's code. A failure is audited (`sso_login_failed`) here and
// counts toward the address's login penalty; the route (callback.ts) turns the outcome into a page
// or a redirect. A penalty in force is thrown as the 429 problem (an HTML page on that route).
import { tooManyAttempts } from '../platform/errors.ts';
import { recordAudit } from '../iam/audit.ts';
import { checkAuthorizationRequest, withParams, type AuthorizationRequest } from '../iam/authorize-request.ts';
import { issueAuthorizationCode } from '../iam/codes.ts';
import type { Throttle } from '../iam/throttle.ts';
import { claimPending, type ClaimedPending, type PendingClaim } from './pending.ts';
import { matchApiUser } from './matching.ts';
import { loadEndpoint } from './providers.ts';
import { SsoFailure, type VerifiedIdentity } from './relying-party.ts';
import type { SsoRuntime } from './runtime.ts';

/** The provider's answer as the browser brought it back. */
export interface ProviderReturn {
  state: string | undefined;
  /** The callback's query: the provider's code (or error), state and iss. */
  params: URLSearchParams;
  /** The flow cookie's value, which binds the flow to the browser that started it. */
  browserBinding: string | undefined;
  address: string;
  /** Logs why a provider's answer was refused (its detail is for the operator, not the page). */
  warn(details: Record<string, unknown>, message: string): void;
}

export type SignInOutcome =
  | { answer: 'redirect'; to: string }
  | { answer: 'failed'; reason: string; message?: string; retryUrl?: string };

interface Failure {
  reason: string;
  message?: string;
}

type Endpoint = NonNullable<Awaited<ReturnType<typeof loadEndpoint>>>;

/** What the checks learn, in their order; the failure's audit entry names the client and user known by then. */
interface SignInFlow {
  returned: ProviderReturn;
  clientId?: string;
  userId?: string;
  /** The client's authorization request, for a "try again" link. */
  retryUrl?: string;
  claim?: PendingClaim;
  pending?: ClaimedPending;
  auth?: AuthorizationRequest;
  provider?: Endpoint;
  identity?: VerifiedIdentity;
  issued?: { code: string; linked: boolean };
}

export interface SignInDeps {
  runtime: SsoRuntime;
  throttle: Throttle;
}

type SignInCheck = (flow: SignInFlow, deps: SignInDeps) => Promise<Failure | undefined>;

/** What an earlier check filled in (the checks run in order). */
function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`SSO sign-in check run before ${what} was known.`);
  return value;
}

function authorizeUrl({ runtime }: SignInDeps): string {
  return `${runtime.deps.config.authUrl}/oauth/authorize`;
}

const stateGiven: SignInCheck = async (flow) => (flow.returned.state ? undefined : { reason: 'missing_state' });

/** Claims the pending authorization of `state` (once); whether it could is told after the penalty check. */
const pendingClaimed: SignInCheck = async (flow, deps) => {
  const { db, clock } = deps.runtime.deps;
  const claim = await claimPending(db, deps.runtime.box, need(flow.returned.state, 'the state'), flow.returned.browserBinding, clock.now());
  flow.claim = claim;
  flow.clientId = claim.ok ? claim.pending.clientId : claim.clientId;
  const request = claim.ok ? claim.pending.request : claim.request;
  if (request) flow.retryUrl = withParams(authorizeUrl(deps), request);
  return undefined;
};

/**
 * Counted as a failed login of the client from this address until it succeeds (CONTRACT §8: SSO
 * failures count toward the per-address penalty); refused while a penalty is in force.
 */
const withinPenalty: SignInCheck = async (flow, { runtime, throttle }) => {
  if (!flow.clientId) return undefined;
  const blocked = await throttle.attempt(flow.clientId, flow.returned.address);
  if (!blocked) return undefined;
  await recordAudit(runtime.deps.db, { event: 'sso_login_failed', outcome: 'throttled', clientId: flow.clientId, address: flow.returned.address, detail: 'throttled' }, runtime.deps.clock.now());
  throw tooManyAttempts(blocked.retryAfter, 'sign-in attempts');
};

const pendingValid: SignInCheck = async (flow) => {
  const claim = need(flow.claim, 'the claim');
  if (!claim.ok) return { reason: claim.reason };
  flow.pending = claim.pending;
  return undefined;
};

/**
 * The client's own authorization request still holds (client enabled, redirect URI registered), and
 * the client still has the `sso` grant: the operator may have withdrawn it since the flow started,
 * which closes SSO for the client (CONTRACT §6, §8) however far the flow had come.
 */
const requestStillValid: SignInCheck = async (flow, { runtime }) => {
  const pending = need(flow.pending, 'the pending authorization');
  try {
    const checked = await checkAuthorizationRequest(runtime.deps.db, runtime.deps.config.issuer, pending.request);
    if (!checked.ok || checked.request.client.id !== pending.clientId || !checked.request.client.grants.includes('sso')) return { reason: 'request_invalid' };
    flow.auth = checked.request;
    return undefined;
  } catch {
    return { reason: 'request_invalid' };
  }
};

const providerStillThere: SignInCheck = async (flow, { runtime }) => {
  const provider = await loadEndpoint(runtime.deps.db, runtime.box, need(flow.pending, 'the pending authorization').providerId);
  if (!provider || provider.organisationId !== need(flow.auth, 'the request').client.organisationId) return { reason: 'provider_removed' };
  flow.provider = provider;
  return undefined;
};

/** openid-client exchanges the provider's code and validates its ID token in full. */
const providerVouches: SignInCheck = async (flow, { runtime }) => {
  const pending = need(flow.pending, 'the pending authorization');
  const provider = need(flow.provider, 'the provider');
  try {
    flow.identity = await runtime.rp.finish(provider, flow.returned.params, { state: need(flow.returned.state, 'the state'), nonce: pending.nonce, codeVerifier: pending.codeVerifier });
    return undefined;
  } catch (error) {
    if (!(error instanceof SsoFailure)) throw error;
    flow.returned.warn({ provider: provider.id, reason: error.reason, detail: error.detail }, 'SSO sign-in refused');
    return { reason: error.reason, message: error.message };
  }
};

/** The code for the client's API User that the provider's identity matches (linking it the first time). */
const codeIssued: SignInCheck = async (flow, { runtime }) => {
  const { db, clock, config } = runtime.deps;
  const auth = need(flow.auth, 'the request');
  const provider = need(flow.provider, 'the provider');
  const now = clock.now();
  const match = await matchApiUser(db, auth.client.id, provider, need(flow.identity, 'the identity'), now);
  flow.userId = match.userId;
  if (!match.ok) return { reason: match.reason };
  const code = await issueAuthorizationCode(
    db,
    { clientId: auth.client.id, userId: match.userId, redirectUri: auth.redirectUri, nonce: auth.nonce, codeChallenge: auth.codeChallenge, authTime: now, proof: { federation: { providerId: provider.id, issuer: provider.issuer } } },
    config.authCodeTtl,
    now,
  );
  if (code === undefined) return { reason: 'sign_in_withdrawn' };
  flow.issued = { code, linked: match.linked };
  return undefined;
};

/** Clears the address's failures, audits the sign-in, and continues the client's flow as after a secret login. */
async function signedIn(flow: SignInFlow, { runtime, throttle }: SignInDeps): Promise<SignInOutcome> {
  const { db, clock, config } = runtime.deps;
  const auth = need(flow.auth, 'the request');
  const provider = need(flow.provider, 'the provider');
  const { code, linked } = need(flow.issued, 'the code');
  await throttle.succeeded(auth.client.id, flow.returned.address);
  await recordAudit(db, { event: 'sso_login', outcome: 'success', clientId: auth.client.id, userId: flow.userId ?? null, address: flow.returned.address, detail: linked ? `linked:${provider.id}` : provider.id }, clock.now());
  return { answer: 'redirect', to: withParams(auth.redirectUri, { code, state: auth.state, iss: config.issuer }) };
}

/** In this order. */
const SIGN_IN_CHECKS: readonly SignInCheck[] = [stateGiven, pendingClaimed, withinPenalty, pendingValid, requestStillValid, providerStillThere, providerVouches, codeIssued];

export async function finishSignIn(returned: ProviderReturn, deps: SignInDeps): Promise<SignInOutcome> {
  const flow: SignInFlow = { returned };
  for (const check of SIGN_IN_CHECKS) {
    const failure = await check(flow, deps);
    if (failure) {
      await recordAudit(deps.runtime.deps.db, { event: 'sso_login_failed', outcome: 'failure', clientId: flow.clientId ?? null, userId: flow.userId ?? null, address: returned.address, detail: failure.reason }, deps.runtime.deps.clock.now());
      return { answer: 'failed', ...failure, ...(flow.retryUrl ? { retryUrl: flow.retryUrl } : {}) };
    }
  }
  return signedIn(flow, deps);
}
