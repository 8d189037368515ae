// The secured subtree (/api/v1/company, /feeds, /timeclock): one authentication hook and one
// per-client rate limit for every route registered inside it.
import rateLimit from '@fastify/rate-limit';
import type { App } from './http.ts';
import type { AppContext } from './context.ts';
import { Authenticator } from './auth.ts';
import { companyRoutes } from '../company/routes.ts';
import { inboundRoutes } from '../inbound/routes.ts';
import { timeclockRoutes } from '../timeclock/routes.ts';

export async function securedApi(app: App, { ctx }: { ctx: AppContext }): Promise<void> {
  const authenticator = new Authenticator(ctx);
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', async (request) => {
    request.principal = await authenticator.authenticate(request);
  });
  await app.register(rateLimit, {
    max: ctx.config.rateLimitApiPerMinute,
    timeWindow: 60_000,
    hook: 'preHandler',
    // Redis down must not take the API down with it: the limit fails open (and /readyz reports it).
    skipOnError: true,
    keyGenerator: (request) => `api:${request.principal.clientId}`,
    ...(ctx.redis ? { redis: ctx.redis, nameSpace: 'wfs-rl-api:' } : {}),
  });

  await app.register(companyRoutes, { ctx });
  await app.register(inboundRoutes, { ctx });
  await app.register(timeclockRoutes, { ctx });
}
