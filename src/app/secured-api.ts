// The secured subtree (/api/v1/company, /feeds, /timeclock): one authentication hook and one
// per-client rate limit for every route registered inside it.
import { COMPANY_API_BODY_LIMIT, type App } from '../platform/http.ts';
import type { AppContext } from './context.ts';
import type { CachedAnswerLane } from '../platform/cached-answer-lane.ts';
import { CACHED_HEADERS } from '../platform/response-cache.ts';
import { limitRequests, MemoryRateCounter, RedisRateCounter } from '../platform/rate-limit.ts';
import { repeatedWarning } from '../platform/repeated-warning.ts';
import { Authenticator, type Principal } from '../iam/bearer-authentication.ts';
import { companyRoutes } from '../company/routes.ts';
import { inboundRoutes } from '../inbound/routes.ts';
import { timeclockRoutes } from '../timeclock/routes.ts';
import { changeRoutes } from '../changes/routes.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { changeDeps, companyDeps, inboundDeps, timeclockDeps, webhookDeps } from './feature-options.ts';

/** The per-client API limit's key. */
const apiKey = (principal: Principal) => `api:${principal.clientId}`;

export async function securedApi(app: App, { ctx, lane }: { ctx: AppContext; lane: CachedAnswerLane | undefined }): Promise<void> {
  const authenticator = new Authenticator(ctx);
  app.decorateRequest('principal', null as never);
  // CONTRACT §4: a body over 2 MiB is 413, on every endpoint of the company API.
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= COMPANY_API_BODY_LIMIT;
  });
  // Callback style: a token already verified is answered without a promise (the common case). One
  // hook for the caching rule too, as every secured request passes here: reads may be kept by the
  // client only (private: the answer is one company's) and must be revalidated before reuse
  // (no-cache: their ETag makes that cheap); a route may choose otherwise (the change log: no-store).
  // Writes are no-store already (app.ts), refusals too (http.ts).
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') reply.header('cache-control', CACHED_HEADERS.cacheControl);
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
  // Redis down must not take the API down with it: the limit fails open (and /readyz reports it).
  const countWithin = limitRequests(app, {
    max: ctx.config.rateLimitApiPerMinute,
    windowMs: 60_000,
    counter: ctx.redis ? new RedisRateCounter(ctx.redis, 'wfs-rl-api:') : new MemoryRateCounter(() => ctx.clock.now()),
    key: (request) => apiKey(request.principal),
    onError: repeatedWarning(app.log, 'rate-limit store unavailable; API limit not applied', ctx.clock),
  });
  // The lane answers a cached read only for a token this connection verified before and a count in memory.
  const cachedAnswers = lane?.scope<Principal>({
    principal: (request) => authenticator.rememberedPrincipal(request.socket, request.headers.authorization),
    count: (principal) => countWithin(apiKey(principal)),
  });

  await app.register(companyRoutes, { deps: companyDeps(ctx), cachedAnswers });
  await app.register(inboundRoutes, { deps: inboundDeps(ctx) });
  await app.register(timeclockRoutes, { deps: timeclockDeps(ctx) });
  await app.register(changeRoutes, { deps: changeDeps(ctx) });
  await app.register(webhookRoutes, { deps: webhookDeps(ctx) });
}
