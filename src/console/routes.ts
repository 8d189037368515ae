// The customer console (CONTRACT §6) under {auth_url}/console: server-rendered pages (Eta through
// @fastify/view) for the people of a customer organisation. This file wires the parts every page
// shares — session cookie, access checks, CSRF, rendering, error pages — and registers the pages.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import type { Redis } from 'ioredis';
import type { Config } from '../platform/config.ts';
import type { WebhookDeps } from '../webhooks/deps.ts';
import { ProblemError, titleFor } from '../platform/errors.ts';
import { sharedSecret } from '../platform/db/shared-secret.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import { loadSecretBox } from '../sso/secrets-key.ts';
import { LoginCsrf } from '../iam/csrf.ts';
import { MemoryThrottleStore, RedisThrottleStore, Throttle } from '../iam/throttle.ts';
import { ConsoleCsrf, EXPIRED_FORM, READ_ONLY, admitted } from './access.ts';
import { SignInPenalties } from './sign-in-penalties.ts';
import { renderPage, type PageContext, type PageData } from './pages.ts';
import { readSession, steppedUp } from './sessions.ts';
import { signInRoutes } from './sign-in-routes.ts';
import { invitationRoutes } from './invitation-routes.ts';
import { peopleRoutes } from './people-routes.ts';
import { organisationRoutes } from './organisation-routes.ts';
import { clientRoutes } from './client-routes.ts';
import { userRoutes } from './user-routes.ts';
import { auditRoutes } from './audit-routes.ts';
import { ssoRoutes } from './sso-routes.ts';
import { webhookRoutes } from './webhook-routes.ts';

/**
 * What the console needs of the context (src/app/feature-options.ts builds it): what the webhook
 * operations it calls need, and its own sign-in limit, Redis that shares it, and addresses.
 */
export interface ConsoleDeps extends WebhookDeps {
  readonly redis: Redis | undefined;
  readonly config: WebhookDeps['config'] & Pick<Config, 'authUrl' | 'rateLimitTokenPerMinute' | 'ssoAllowInsecure'>;
}

/** What the console's route files share. */
export interface Console {
  deps: ConsoleDeps;
  root: string;
  /** Seals TOTP secrets (totp-secrets.ts). */
  secrets: SecretBox;
  /** Failed passwords and TOTP codes (sign-in, step-up, enrolment) are penalised (sign-in-penalties.ts). */
  penalties: SignInPenalties;
  render(request: FastifyRequest, reply: FastifyReply, template: string, data: PageData, status?: number): Promise<FastifyReply>;
  /** Sets (or, with undefined, clears) the session cookie. */
  setSessionCookie(reply: FastifyReply, token: string | undefined): void;
  /** A console path (`/clients/x`) as the browser addresses it. */
  url(path: string): string;
  /**
   * Undefined when the session confirmed password and TOTP within the last 10 minutes; otherwise the
   * step-up page's address, which comes back to the console page `back` afterwards.
   */
  stepUpDue(request: FastifyRequest, back: string): string | undefined;
}

const ASSETS = new URL('./assets/', import.meta.url);
const STYLESHEET = readFileSync(new URL('console.css', ASSETS));
const SCRIPT = readFileSync(new URL('console.js', ASSETS));

export async function consoleRoutes(app: App, { deps }: { deps: ConsoleDeps }): Promise<void> {
  const authUrl = new URL(deps.config.authUrl);
  const root = `${authUrl.pathname.replace(/\/+$/, '')}/console`;
  const secure = authUrl.protocol === 'https:';
  // A __Host- cookie is bound to this exact origin, sent over https only, for the whole host.
  const cookieName = secure ? '__Host-wfs_console' : 'wfs_console';
  const csrfKey = Buffer.from(await sharedSecret(deps.db, 'console_csrf_hmac'), 'base64url');
  const csrf = new ConsoleCsrf(csrfKey, new LoginCsrf(csrfKey, deps.config.authUrl, { path: '/console', cookie: 'wfs_console_csrf' }));
  const store = deps.redis ? new RedisThrottleStore(deps.redis, 'wfs:console:') : new MemoryThrottleStore();
  const throttle = new Throttle(store, {
    perMinute: deps.config.rateLimitTokenPerMinute,
    clock: deps.clock,
    onError: (error) => app.log.warn({ err: error }, 'rate-limit store unavailable; console sign-in penalties not applied'),
  });
  const pages: PageContext = { root, csrfFor: (request, reply) => csrf.issue(request, reply) };

  // Pages for people, not API operations: left out of the OpenAPI document (docs/console.md has them).
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(cookie);
  await app.register(view, { engine: { eta: new Eta({ autoEscape: true, autoTrim: [false, 'nl'] }) }, templates: fileURLToPath(new URL('./views/', import.meta.url)), production: true });

  const shared: Console = {
    deps,
    root,
    secrets: await loadSecretBox(deps.db, deps.config, (message) => app.log.warn(message)),
    penalties: new SignInPenalties(throttle, deps),
    render: (request, reply, template, data, status) => renderPage(pages, request, reply, template, data, status),
    setSessionCookie: (reply, token) => {
      if (token === undefined) reply.clearCookie(cookieName, { path: '/', httpOnly: true, sameSite: 'lax', secure });
      else reply.setCookie(cookieName, token, { path: '/', httpOnly: true, sameSite: 'lax', secure });
    },
    url: (path) => `${root}${path}`,
    stepUpDue: (request, back) => {
      const session = request.consoleSession;
      if (session && steppedUp(session, deps.clock.now())) return undefined;
      return `${root}/step-up?${new URLSearchParams({ next: `${root}${back}` }).toString()}`;
    },
  };

  app.addHook('preHandler', async (request, reply) => {
    const access = request.routeOptions.config.consoleAccess;
    if (!access) return undefined;
    request.consoleSession = await readSession(deps.db, request.cookies[cookieName], deps.clock.now());
    if (!admitted(access, request.consoleSession)) {
      if (request.consoleSession === undefined) shared.setSessionCookie(reply, undefined);
      return reply.redirect(`${root}/login`, 303);
    }
    if (request.method !== 'POST') return undefined;
    if (!csrf.valid(request)) throw EXPIRED_FORM;
    if (access === 'admin' && request.consoleSession?.user.role !== 'admin') throw READ_ONLY;
    return undefined;
  });

  app.setErrorHandler(async (error: Error & { statusCode?: number }, request, reply) => {
    const problem = error instanceof ProblemError ? error : undefined;
    const status = problem?.status ?? (error.statusCode && error.statusCode < 500 ? error.statusCode : 500);
    if (status >= 500) request.log.error({ err: error }, 'console request failed');
    const message = problem?.message ?? (status === 404 ? 'There is nothing here.' : status < 500 ? 'The request could not be understood.' : 'Something went wrong on our side. Try again in a moment.');
    reply.headers(problem?.headers ?? {});
    return shared.render(request, reply, 'error', { title: titleFor(status), message }, status);
  });

  app.get('/console/assets/console.css', (_request, reply) => reply.header('Cache-Control', 'public, max-age=3600').type('text/css; charset=utf-8').send(STYLESHEET));
  app.get('/console/assets/console.js', (_request, reply) => reply.header('Cache-Control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(SCRIPT));

  // An unknown console address is a page too, not the API's problem+json; a known one asked with
  // another method is a 405 page with Allow, as everywhere else (docs/errors.md).
  await app.register(async (scope) => {
    scope.setNotFoundHandler((request, reply) => {
      const problem = app.noRouteProblem(request);
      const message = problem.status === 404 ? 'There is no such page in the console.' : problem.message;
      return shared.render(request, reply.headers(problem.headers), 'error', { title: titleFor(problem.status), message }, problem.status);
    });
  }, { prefix: '/console' });
  await app.register(signInRoutes, { console: shared });
  await app.register(invitationRoutes, { console: shared });
  await app.register(organisationRoutes, { console: shared });
  await app.register(clientRoutes, { console: shared });
  await app.register(userRoutes, { console: shared });
  await app.register(auditRoutes, { console: shared });
  await app.register(ssoRoutes, { console: shared });
  await app.register(webhookRoutes, { console: shared });
  await app.register(peopleRoutes, { console: shared });
}
