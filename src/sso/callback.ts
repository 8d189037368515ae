// The provider's return to the service: GET {auth_url}/oauth/sso/callback (CONTRACT §8). The route
// hands the answer to sign-in.ts's checks (claim the pending authorization named by `state` once,
// check the browser, re-check the client's request and grant, let openid-client validate the ID
// token, match the API User, issue the code) and turns their outcome into the redirect to the client
// or an HTML page saying why it failed.
import cookie from '@fastify/cookie';
import { Type } from 'typebox';
import type { App } from '../platform/http.ts';
import { escapeHtml, htmlPage } from '../platform/http.ts';
import { HtmlPage } from '../iam/oauth-schemas.ts';
import { pageSecurityHeaders } from '../platform/page-security.ts';
import type { Throttle } from '../iam/throttle.ts';
import { finishSignIn } from './sign-in.ts';
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
type FailureStatus = 400 | 403 | 502;
const EXPLANATIONS: Record<string, { status: FailureStatus; text: string }> = {
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

/** The failure page: what the person reads for the reason, and a link to start again when the client's request is known. */
function failurePage(reason: string, message: string | undefined, retryUrl: string | undefined): { status: FailureStatus; html: string } {
  const explanation = EXPLANATIONS[reason] ?? { status: reason === 'provider_unreachable' ? 502 : 400, text: message ?? 'The sign-in failed.' };
  const retry = retryUrl ? `<p><a href="${escapeHtml(retryUrl)}">Start the sign-in again</a></p>` : '';
  return { status: explanation.status, html: htmlPage('Sign-in failed', `<h1>Sign-in failed</h1><p class="error" role="alert">${escapeHtml(explanation.text)}</p>${retry}`) };
}

export async function callbackRoutes(app: App, { runtime, throttle }: { runtime: SsoRuntime; throttle: Throttle }): Promise<void> {
  await app.register(cookie);

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
    const outcome = await finishSignIn({
      state: request.query.state,
      params: new URLSearchParams(request.query as Record<string, string>),
      browserBinding: request.cookies[runtime.cookie.name],
      address: request.ip,
      warn: (details, message) => request.log.warn(details, message),
    }, { runtime, throttle });
    if (outcome.answer === 'redirect') return reply.headers(pageSecurityHeaders()).redirect(outcome.to, 302);
    const page = failurePage(outcome.reason, outcome.message, outcome.retryUrl);
    return reply.code(page.status).headers(pageSecurityHeaders()).type('text/html; charset=utf-8').send(page.html);
  });
}
