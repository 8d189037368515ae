// The operator API (/api/v1/admin, Bearer ADMIN_TOKEN): the operator routes of identity and company
// administration, single sign-on and console invitations in one scope that reads JSON bodies only
// (CONTRACT §4: any other content type is 415, as on the company API) and documents the refusals.
import { acceptJsonOnly, documentBodyRefusals, type App } from '../platform/http.ts';
import type { AppContext } from './context.ts';
import type { SsoRuntime } from '../sso/runtime.ts';
import { adminRoutes } from '../admin/routes.ts';
import { ssoAdminRoutes } from '../sso/admin-routes.ts';
import { consoleAdminRoutes } from '../console/admin-routes.ts';
import { adminDeps } from './feature-options.ts';

export async function operatorApi(app: App, { ctx, sso }: { ctx: AppContext; sso: SsoRuntime }): Promise<void> {
  acceptJsonOnly(app);
  documentBodyRefusals(app);
  await app.register(adminRoutes, { deps: adminDeps(ctx) });
  await app.register(ssoAdminRoutes, { sso });
  await app.register(consoleAdminRoutes, { deps: adminDeps(ctx) });
}
