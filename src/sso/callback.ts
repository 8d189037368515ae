// The provider's return to the service: GET {auth_url}/oauth/sso/callback (CONTRACT §8). Claims the
// pending authorization named by `state` (once), checks the browser, re-checks the client's own
// authorization request, lets openid-client exchange the code and validate the ID token, matches the
// API User, and continues the client's flow with a code to its redirect URI. Every failure is an
// HTML page, an `sso_login_failed` audit entry and a failure toward the address's login penalty.
import cookie from '@fastify/cookie';
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import { escapeHtml, htmlPage } from '../platform/http.ts';
import { ProblemError } from '../platform/errors.ts';
import { recordAudit } from '../iam/audit.ts';
import { checkAuthorizationRequest, withParams } from '../iam/authorize-request.ts';
import { issueAuthorizationCode } from '../iam/codes.ts';
import { HtmlPage } from '../iam/oauth-schemas.ts';
import { pageSecurityHeaders } from '../iam/page-security.ts';
import type { Throttle } from '../iam/throttle.ts';
import { claimPending } from './pending.ts';
import { matchApiUser } from './matching.ts';
import { loadEndpoint } from './providers.ts';
import { SsoFailure } from './relying-party.ts';
import type { SsoRuntime } from './runtime.ts';

const CallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 512, description: 'The state this service sent to the provider' })),
    code: Type.Optional(Type.String({ maxLength: 4096, description: 'The provider\'s authorization code' })),
    iss: Type.Optional(Type.String({ maxLength: 2048, description: 'RFC 9207: the provider\'s issuer' })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);

/** What the person reads for each failure reason (the audit log keeps the reason itself). */
const EXPLANATIONS: Record<string, { status: number; text: string }> = {
  missing_state: { status: 400, text: 'This sign-in answer carries no state. Start the sign-in again from the application.' },
  unknown_state: { status: 400, text: 'This sign-in answer does not belong to a sign-in started here. Start the sign-in again from the application.' },
  replayed_callback: { status: 400, text: 'This sign-in answer has already been used. Start the sign-in again from the application.' },
  expired_state: { status: 400, text: 'This sign-in took too long and has expired. Start the sign-in again.' },
  other_browser: { status: 400, text: 'This sign-in was started in another browser. Start the sign-in again in this one.' },
  request_invalid: { status: 400, text: 'The application\'s sign-in request is no longer valid (its client may have been disabled, or single sign-on turned off for it).' },
  provider_removed: { status: 400, text: 'The identity provider of this sign-in has been removed by your organisation.' },
  no_matching_user: { status: 403, text: 'Your organisation\'s identity provider signed you in, but no API User of this application matches that account. Nothing was created; ask your administrator.' },
  email_not_verified: { status: 403, text: 'Your organisation\'s identity provider does not vouch for the email of that account (email_verified is not true), so it cannot be matched to an API User.' },
  email_outside_domains: { status: 403, text: 'The email of that account is not in a domain of this identity provider, so it cannot be matched to an API User.' },
  hosted_domain_mismatch: { status: 403, text: 'That Google account does not belong to your organisation\'s Google Workspace domain.' },
  user_linked_elsewhere: { status: 403, text: 'The matching API User is already linked to another account of an identity provider.' },
  user_disabled: { status: 403, text: 'The API User is disabled.' },
  sign_in_withdrawn: { status: 403, text: 'While this sign-in was being checked, your organisation removed its identity provider or disabled the API User, or single sign-on was turned off for the application: nothing was issued.' },
};

interface FailureContext {
  clientId?: string | undefined;
  userId?: string | undefined;
  /** The client's authorization request, for a "try again" link. */
  retryUrl?: string | undefined;
}

export async function callbackRoutes(app: App, { runtime, throttle }: { runtime: SsoRuntime; throttle: Throttle }): Promise<void> {
  const { deps, box, rp } = runtime;
  const authorizeUrl = `${deps.config.authUrl}/oauth/authorize`;
  await app.register(cookie);

  async function fail(request: FastifyRequest, reply: FastifyReply, reason: string, context: FailureContext, message?: string): Promise<FastifyReply> {
    await recordAudit(deps.db, { event: 'sso_login_failed', outcome: 'failure', clientId: context.clientId ?? null, userId: context.userId ?? null, address: request.ip, detail: reason }, deps.clock.now());
    const explanation = EXPLANATIONS[reason] ?? { status: reason === 'provider_unreachable' ? 502 : 400, text: message ?? 'The sign-in failed.' };
    const retry = context.retryUrl ? `<p><a href="${escapeHtml(context.retryUrl)}">Start the sign-in again</a></p>` : '';
    return reply.code(explanation.status).headers(pageSecurityHeaders()).type('text/html; charset=utf-8')
      .send(htmlPage('Sign-in failed', `<h1>Sign-in failed</h1><p class="error" role="alert">${escapeHtml(explanation.text)}</p>${retry}`));
  }

  app.get('/oauth/sso/callback', {
    config: { errorFormat: 'html' },
    schema: {
      tags: ['identity'],
      operationId: 'ssoCallback',
      summary: 'Return from an organisation\'s OpenID provider (single sign-on)',
      description: 'The redirect URI this service registers at each SSO provider ({auth_url}/oauth/sso/callback). Success: 302 to the client\'s redirect_uri with code, state and iss, as after a secret login. Failure: an HTML page saying why (audited as sso_login_failed).',
      querystring: CallbackQuery,
      response: { 302: Type.Null({ description: 'To the client\'s redirect_uri with code, state and iss' }), 400: HtmlPage('Unknown, used or expired state; another browser'), 403: HtmlPage('No matching API User, unverified email …'), 429: HtmlPage('Too many failed sign-ins from this address'), 502: HtmlPage('The provider could not be reached') },
    },
  }, async (request, reply) => {
    const { state } = request.query;
    if (!state) return fail(request, reply, 'missing_state', {});
    const claim = await claimPending(deps.db, box, state, request.cookies[runtime.cookie.name], deps.clock.now());
    const clientId = claim.ok ? claim.pending.clientId : claim.clientId;
    // Counted as a failed login of the client from this address until it succeeds (CONTRACT §8: SSO
    // failures count toward the per-address penalty); refused while a penalty is in force.
    const blocked = clientId ? await throttle.attempt(clientId, request.ip) : undefined;
    if (blocked) {
      await recordAudit(deps.db, { event: 'sso_login_failed', outcome: 'throttled', clientId: clientId ?? null, address: request.ip, detail: 'throttled' }, deps.clock.now());
      throw new ProblemError({ code: 'too_many_requests', detail: `Too many sign-in attempts. Try again in ${blocked.retryAfter} second${blocked.retryAfter === 1 ? '' : 's'}.`, headers: { 'Retry-After': String(blocked.retryAfter) } });
    }
    const retryUrl = claim.ok ? withParams(authorizeUrl, claim.pending.request) : claim.request ? withParams(authorizeUrl, claim.request) : undefined;
    if (!claim.ok) return fail(request, reply, claim.reason, { clientId: claim.clientId, retryUrl });
    const { pending } = claim;
    const who = { clientId: pending.clientId, retryUrl };
    let auth;
    try {
      const checked = await checkAuthorizationRequest(deps.db, deps.config.issuer, pending.request);
      if (!checked.ok || checked.request.client.id !== pending.clientId) return fail(request, reply, 'request_invalid', who);
      // The operator may have withdrawn the client's `sso` grant since the flow started: SSO is then
      // closed for the client (CONTRACT §6, §8), however far the flow had come.
      if (!checked.request.client.grants.includes('sso')) return fail(request, reply, 'request_invalid', who);
      auth = checked.request;
    } catch {
      return fail(request, reply, 'request_invalid', who);
    }
    const provider = await loadEndpoint(deps.db, box, pending.providerId);
    if (!provider || provider.organisationId !== auth.client.organisationId) return fail(request, reply, 'provider_removed', who);

    let identity;
    try {
      identity = await rp.finish(provider, new URLSearchParams(request.query as Record<string, string>), { state, nonce: pending.nonce, codeVerifier: pending.codeVerifier });
    } catch (error) {
      if (!(error instanceof SsoFailure)) throw error;
      request.log.warn({ provider: provider.id, reason: error.reason, detail: error.detail }, 'SSO sign-in refused');
      return fail(request, reply, error.reason, who, error.message);
    }
    const now = deps.clock.now();
    const match = await matchApiUser(deps.db, auth.client.id, provider, identity, now);
    if (!match.ok) return fail(request, reply, match.reason, { ...who, userId: match.userId });

    const code = await issueAuthorizationCode(
      deps.db,
      { clientId: auth.client.id, userId: match.userId, redirectUri: auth.redirectUri, nonce: auth.nonce, codeChallenge: auth.codeChallenge, authTime: now, proof: { federation: { providerId: provider.id, issuer: provider.issuer } } },
      deps.config.authCodeTtl,
      now,
    );
    if (code === undefined) return fail(request, reply, 'sign_in_withdrawn', { ...who, userId: match.userId });
    await throttle.succeeded(auth.client.id, request.ip);
    await recordAudit(deps.db, { event: 'sso_login', outcome: 'success', clientId: auth.client.id, userId: match.userId, address: request.ip, detail: match.linked ? `linked:${provider.id}` : provider.id }, now);
    return reply.headers(pageSecurityHeaders()).redirect(withParams(auth.redirectUri, { code, state: auth.state, iss: deps.config.issuer }), 302);
  });
}
