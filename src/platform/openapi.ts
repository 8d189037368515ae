// The OpenAPI 3.1 document is generated from the route schemas (one TypeBox schema per route
// validates, serialises and documents) and served at /openapi.json, with a reference page at /docs
// whose assets ship in the package (no CDN).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from './http.ts';
import type { AppContext } from './context.ts';

export async function registerOpenApi(app: App, ctx: AppContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Workforce Scheduling Service',
        version: '1.0.0',
        description:
          'OAuth 2.0 / OpenID Connect authorization server and company API. Errors of the company API are ' +
          'RFC 9457 problem details; errors of the OAuth endpoints are RFC 6749 `{error, error_description}`.',
      },
      servers: [{ url: ctx.config.baseUrl }],
      components: {
        securitySchemes: {
          idToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An ID token (= access token).' },
          oauth: {
            type: 'oauth2',
            flows: {
              authorizationCode: {
                authorizationUrl: `${ctx.config.authUrl}/oauth/authorize`,
                tokenUrl: `${ctx.config.issuer}/oauth/token`,
                refreshUrl: `${ctx.config.issuer}/idToken`,
                scopes: { all: 'Everything the API User may do (the only scope).' },
              },
            },
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
