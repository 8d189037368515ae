// The identity endpoints (contract: identity and access). Each endpoint lives in its own file beside this one; they
// share one Throttle (per-client rate limits and failure penalties), kept in Redis when configured.
import type { App } from '../platform/http.ts';
import { repeatedWarning } from '../platform/repeated-warning.ts';
import type { IdentityDeps } from './identity-deps.ts';
import { discoveryRoutes } from './discovery.ts';
import { authorizeRoutes } from './authorize.ts';
import { tokenRoutes } from './token-endpoint.ts';
import { idTokenRoutes } from './id-token-endpoint.ts';
import { revocationRoutes } from './revocation-endpoint.ts';
import { MemoryThrottleStore, RedisThrottleStore, Throttle } from './throttle.ts';
import type { LoginFederation } from './federation.ts';

/** `federation`: single sign-on on the login page (src/sso), when the composition layer provides it. */
export async function iamRoutes(app: App, { deps, federation }: { deps: IdentityDeps; federation?: LoginFederation }): Promise<void> {
  const store = deps.redis ? new RedisThrottleStore(deps.redis) : new MemoryThrottleStore();
  const throttle = new Throttle(store, {
    perMinute: deps.config.rateLimitTokenPerMinute,
    clock: deps.clock,
    onError: repeatedWarning(app.log, 'rate-limit store unavailable; identity limits not applied', deps.clock),
  });
  await app.register(discoveryRoutes, { deps });
  await app.register(authorizeRoutes, { deps, throttle, federation });
  if (federation) await app.register(federation.routes, { throttle });
  await app.register(tokenRoutes, { deps, throttle });
  await app.register(idTokenRoutes, { deps, throttle });
  await app.register(revocationRoutes, { deps, throttle });
}
