// The authorize endpoint (contract: identity and access, "Authorize"): GET shows the login form, POST checks the API
// User's email and secret and redirects to the client with a code. Both methods re-check the whole
// authorization request, so the form's hidden inputs are never trusted blindly. The POST's checks
// are login-submission.ts's; this file turns their outcome into a page or a redirect.
import cookie from '@fastify/cookie';
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import type { IdentityDeps } from './identity-deps.ts';
import { sharedSecret } from '../platform/db/shared-secret.ts';
import { AuthorizationParams, checkAuthorizationRequest, withParams, type AuthorizationRequest } from './authorize-request.ts';
import { LoginCsrf } from './csrf.ts';
import { CSRF_FIELD, loginPage } from './login-page.ts';
import { identifierPage } from './identifier-page.ts';
import { NO_FEDERATION, type FederatedLogin, type LoginFederation } from './federation.ts';
import { limitLogins, submitLogin, type LoginOutcome } from './login-submission.ts';
import { HtmlPage, PAGE_EXTRAS, PageRedirect } from './oauth-schemas.ts';
import { pageSecurityHeaders } from '../platform/page-security.ts';
import type { Throttle } from './throttle.ts';

const LoginSubmission = Type.Intersect([
  AuthorizationParams,
  Type.Object({
    email: Type.Optional(Type.String({ maxLength: 254 })),
    secret: Type.Optional(Type.String({ maxLength: 1024 })),
    [CSRF_FIELD]: Type.Optional(Type.String({ maxLength: 128 })),
  }),
]);

const responses = {
  200: HtmlPage('The login form', PAGE_EXTRAS.formCookie),
  302: PageRedirect('To redirect_uri with code, state and iss — or with error, error_description, state and iss'),
  400: HtmlPage('Unknown client, or a malformed or unregistered redirect_uri: an error page, never a redirect'),
  401: HtmlPage('Wrong email or secret: the form again, with a generic message', PAGE_EXTRAS.formCookie),
  403: HtmlPage('Missing or wrong CSRF token: the form again; or a secret sent where the organisation enforces SSO', PAGE_EXTRAS.formCookie),
  502: HtmlPage('The organisation\'s identity provider could not be reached'),
  429: HtmlPage('Too many attempts; see Retry-After', PAGE_EXTRAS.retryAfter),
  503: HtmlPage('The database is briefly unavailable; retry after Retry-After', PAGE_EXTRAS.retryAfter),
};

export async function authorizeRoutes(app: App, { deps, throttle, federation }: { deps: Pick<IdentityDeps, 'db' | 'clock' | 'config'>; throttle: Throttle; federation?: LoginFederation | undefined }): Promise<void> {
  const csrf = new LoginCsrf(Buffer.from(await sharedSecret(deps.db, 'login_csrf_hmac'), 'base64url'), deps.config.authUrl);
  const action = `${deps.config.authUrl}/oauth/authorize`;
  const authOrigin = new URL(deps.config.authUrl).origin;
  const loginDeps = { db: deps.db, clock: deps.clock, config: deps.config, throttle };
  // Only the login page uses a cookie (its CSRF token): the plugin's hooks stay off every other route.
  await app.register(cookie);

  // Every answer of these routes, error pages included, carries the page headers.
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(pageSecurityHeaders());
  });

  function showForm(request: FastifyRequest, reply: FastifyReply, auth: AuthorizationRequest, status: number, extra: { email?: string; message?: string } = {}): FastifyReply {
    const page = loginPage({ action, clientName: auth.client.name, carried: auth.carried, csrfToken: csrf.issue(request, reply), ...extra });
    return reply
      .code(status)
      .headers(pageSecurityHeaders([authOrigin, new URL(auth.redirectUri).origin]))
      .type('text/html; charset=utf-8')
      .send(page);
  }

  /** The identifier step (CONTRACT §8): email only; a link to the secret form unless SSO is enforced. */
  function showIdentifier(request: FastifyRequest, reply: FastifyReply, auth: AuthorizationRequest, login: FederatedLogin, status: number, extra: { email?: string; message?: string } = {}): FastifyReply {
    const secretFormUrl = login.secretAllowed ? withParams(action, { ...auth.carried, login: 'secret' }) : undefined;
    const page = identifierPage({ action, clientName: auth.client.name, carried: auth.carried, csrfToken: csrf.issue(request, reply), ...(secretFormUrl ? { secretFormUrl } : {}), ...extra });
    return reply
      .code(status)
      .headers(pageSecurityHeaders([authOrigin, new URL(auth.redirectUri).origin, ...login.formTargets]))
      .type('text/html; charset=utf-8')
      .send(page);
  }

  function federatedLogin(auth: AuthorizationRequest): Promise<FederatedLogin> {
    return federation ? federation.forClient(auth.client) : Promise.resolve(NO_FEDERATION);
  }

  /** A submission's outcome as the route answers it. */
  function answer(request: FastifyRequest, reply: FastifyReply, auth: AuthorizationRequest, login: FederatedLogin, outcome: LoginOutcome): FastifyReply {
    if (outcome.answer === 'redirect') return reply.redirect(outcome.to, 302);
    const extra = { email: outcome.email, ...(outcome.message === undefined ? {} : { message: outcome.message }) };
    if (outcome.answer === 'identifier') return showIdentifier(request, reply, auth, login, outcome.status, extra);
    return showForm(request, reply, auth, outcome.status, extra);
  }

  app.get(
    '/oauth/authorize',
    {
      config: { errorFormat: 'html' },
      schema: { tags: ['identity'], operationId: 'authorize', summary: 'Login page of the authorization code flow (browser)', description: 'Served on AUTH_URL. Unknown client_id, or a malformed (port outside 1–65535, characters outside RFC 3986) or unregistered redirect_uri: 400 HTML page, never redirected, whatever the other parameters. Other bad parameters (response_type, scope other than `all`/`all openid`, bad PKCE): redirect with error, error_description, state and iss. Otherwise a CSRF-protected login form for the API User of that client.', querystring: AuthorizationParams, response: responses },
    },
    async (request, reply) => {
      const checked = await checkAuthorizationRequest(deps.db, deps.config.issuer, request.query);
      if (!checked.ok) return reply.redirect(checked.redirectTo, 302);
      await limitLogins(throttle, checked.request.client.id, request.ip);
      const login = await federatedLogin(checked.request);
      const secretForm = login.secretAllowed && (request.query as { login?: unknown }).login === 'secret';
      if (login.identifierFirst && !secretForm) return showIdentifier(request, reply, checked.request, login, 200);
      return showForm(request, reply, checked.request, 200);
    },
  );

  app.post(
    '/oauth/authorize',
    {
      config: { errorFormat: 'html' },
      schema: {
        tags: ['identity'],
        operationId: 'authorizeSubmit',
        summary: 'Submit the login form (email, secret, CSRF token and the authorization request)',
        description: 'Success: 302 to redirect_uri with code (single use, AUTH_CODE_TTL seconds), state byte for byte, and iss. Wrong credentials: the form again with status 401; repeated failures: 429 page with Retry-After; bad CSRF token: 403.',
        consumes: ['application/x-www-form-urlencoded'],
        body: LoginSubmission,
        response: responses,
      },
    },
    async (request, reply) => {
      const { email = '', secret, [CSRF_FIELD]: csrfToken, ...params } = request.body;
      const checked = await checkAuthorizationRequest(deps.db, deps.config.issuer, params);
      if (!checked.ok) return reply.redirect(checked.redirectTo, 302);
      const auth = checked.request;
      const login = await federatedLogin(auth);
      const outcome = await submitLogin({
        auth,
        login,
        email,
        secret,
        csrfValid: csrf.valid(request, csrfToken),
        address: request.ip,
        routeEmail: federation ? (typed) => federation.route(request, reply, auth, typed) : undefined,
      }, loginDeps);
      return answer(request, reply, auth, login, outcome);
    },
  );
}
