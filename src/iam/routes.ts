// The identity endpoints (CONTRACT §2). Each endpoint lives in its own file beside this one.
import type { App } from '../platform/http.ts';
import type { AppContext } from '../platform/context.ts';
import { discoveryRoutes } from './discovery.ts';

export async function iamRoutes(app: App, { ctx }: { ctx: AppContext }): Promise<void> {
  await app.register(discoveryRoutes, { ctx });
}
