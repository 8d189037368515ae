// The company API (CONTRACT §3): every handler acts on the token's company only.
import type { App } from '../platform/http.ts';
import type { AppContext } from '../platform/context.ts';
import { Configuration, getConfiguration } from './configuration.ts';
import { problemResponses } from '../platform/schemas.ts';

export async function companyRoutes(app: App, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get(
    '/company/configuration',
    {
      schema: {
        tags: ['company'],
        operationId: 'getConfiguration',
        summary: 'Configuration object of the company',
        security: [{ idToken: [] }],
        response: { 200: Configuration, ...problemResponses(401, 429) },
      },
    },
    async (request) => getConfiguration(ctx.db, request.principal.companyId),
  );
}
