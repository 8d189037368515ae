// The secured subtree (/api/v1/company, /feeds, /timeclock): one authentication hook and one
// per-client rate limit for every route registered inside it.
import rateLimit from '@fastify/rate-limit';
import type { App } from '../platform/http.ts';
import type { AppContext } from './context.ts';
import { Authenticator, type Principal } from '../iam/bearer-authentication.ts';
import { companyRoutes } from '../company/routes.ts';
import { inboundRoutes } from '../inbound/routes.ts';
import { timeclockRoutes } from '../timeclock/routes.ts';
import { changeRoutes } from '../changes/routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { changeDeps, companyDeps, inboundDeps, timeclockDeps, webhookDeps } from './feature-options.ts';

export async function securedApi(app: App, { ctx }: { ctx: AppContext }): Promise<void> {
  const authenticator = new Authenticator(ctx);
  app.decorateRequest('principal', null as never);
  // Callback style: a token already verified is answered without a promise (the common case).
  app.addHook('onRequest', (request, _reply, done) => {
    let principal: Principal | Promise<Principal>;
    try {
      principal = authenticator.authenticate(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (!(principal instanceof Promise)) {
      request.principal = principal;
      done();
      return;
    }
    principal.then((resolved) => {
      request.principal = resolved;
      done();
    }, done);
  });
  await app.register(rateLimit, {
    max: ctx.config.rateLimitApiPerMinute,
    timeWindow: 60_000,
    // Counted before the body is read: a client over its limit costs no parsing, and every answer to
    // an authenticated call — a 400 for a bad body or query included — carries the X-RateLimit-* headers.
    hook: 'preParsing',
    // Redis down must not take the API down with it: the limit fails open (and /readyz reports it).
    skipOnError: true,
    keyGenerator: (request) => `api:${request.principal.clientId}`,
    ...(ctx.redis ? { redis: ctx.redis, nameSpace: 'wfs-rl-api:' } : {}),
  });

  await app.register(companyRoutes, { deps: companyDeps(ctx) });
  await app.register(inboundRoutes, { deps: inboundDeps(ctx) });
  await app.register(timeclockRoutes, { deps: timeclockDeps(ctx) });
  await app.register(changeRoutes, { deps: changeDeps(ctx) });
  await app.register(webhookRoutes, { deps: webhookDeps(ctx) });
}
