// The identity endpoints (CONTRACT §2). Each endpoint lives in its own file beside this one; they
// share one Throttle (per-client rate limits and failure penalties), kept in Redis when configured.
import type { App } from '../platform/http.ts';
import type { AppContext } from '../app/context.ts';
import { discoveryRoutes } from './discovery.ts';
import { authorizeRoutes } from './authorize.ts';
import { tokenRoutes } from './token-endpoint.ts';
import { idTokenRoutes } from './id-token-endpoint.ts';
import { revocationRoutes } from './revocation-endpoint.ts';
import { MemoryThrottleStore, RedisThrottleStore, Throttle } from './throttle.ts';
import type { LoginFederation } from './federation.ts';

/** `federation`: single sign-on on the login page (src/sso), when the composition layer provides it. */
export async function iamRoutes(app: App, { ctx, federation }: { ctx: AppContext; federation?: LoginFederation }): Promise<void> {
  const store = ctx.redis ? new RedisThrottleStore(ctx.redis) : new MemoryThrottleStore();
  const throttle = new Throttle(store, {
    perMinute: ctx.config.rateLimitTokenPerMinute,
    clock: ctx.clock,
    onError: (error) => app.log.warn({ err: error }, 'rate-limit store unavailable; identity limits not applied'),
  });
  await app.register(discoveryRoutes, { ctx });
  await app.register(authorizeRoutes, { ctx, throttle, federation });
  if (federation) await app.register(federation.routes, { throttle });
  await app.register(tokenRoutes, { ctx, throttle });
  await app.register(idTokenRoutes, { ctx, throttle });
  await app.register(revocationRoutes, { ctx, throttle });
}
