// The API reference page at /docs: Scalar (interactive "try it" and the OAuth flow from the page),
// its standalone bundle served from the installed package (@scalar/fastify-api-reference ships it),
// nothing loaded from another origin, and a CSP whose nonce is fresh on every request. The page is
// rendered here rather than by the plugin because the plugin fixes its nonce at registration; the
// plugin serves only the bundle.
//
// Everything host-dependent is taken from the request, so the page works from whatever host name
// opened it (127.0.0.1, localhost, a proxy's name): the document's server is relative (`/`), and the
// token URL and redirect URI given to the page are absolute on the page's own origin. The login page
// alone stays on AUTH_URL even when that is the same service under another name: its form posts to
// AUTH_URL and its CSRF cookie lives there, so a login started on another host name fails with 403.
//
// Logging in from the page (docs/client.md): "Authorize via oauth" beside the idToken field opens
// the login page in a popup (authorization code, PKCE S256, scope `all`, redirect URI `{origin}/docs`),
// reads the code from the popup once it is back on this origin, and exchanges it at the token
// endpoint with the API Client's id and secret (HTTP Basic); the ID token lands in the idToken field.
// There is no page-wide client: each organisation logs in through its own API Client, which must have
// `{origin}/docs` registered. `/docs?client_id=…` fills the id in (the demo's start-up box links it);
// the secret is typed by the person and kept only in the page's memory (persistAuth off).
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import scalarPlugin from '@scalar/fastify-api-reference';
import { renderApiReference } from '@scalar/client-side-rendering';
import type { App } from './http.ts';
import type { Config } from './config.ts';

/** Where the page is served (its route below writes the path out, so a search for it finds the handler). */
const REFERENCE_PATH = '/docs';
const ASSETS_PREFIX = '/docs/scalar';
const BUNDLE_PATH = `${ASSETS_PREFIX}/js/scalar.js`;
export const PAGE_TITLE = 'Workforce Scheduling Service — API reference';

/** The redirect URI an API Client registers to log in from the reference page opened at `origin`. */
export function referenceRedirectUri(origin: string): string {
  return `${origin}${REFERENCE_PATH}`;
}

function pageOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

// Client ids are opaque letters, digits, `_` and `-`; anything else in the query is ignored.
const CLIENT_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The API Client id to fill in: `?client_id=` when it looks like one. */
function requestedClientId(request: FastifyRequest): string | undefined {
  const { client_id: clientId } = request.query as Record<string, unknown>;
  return typeof clientId === 'string' && CLIENT_ID.test(clientId) ? clientId : undefined;
}

/** Scalar's configuration for one request: the OAuth endpoints and redirect URI on the page's origin. */
function scalarConfiguration(config: Config, origin: string, clientId: string | undefined): Record<string, unknown> {
  const tokenUrl = `${origin}/api/v1/iam/oauth/token`;
  return {
    url: '/openapi.json',
    // The document's server is `/`; Scalar joins it to paths with a doubled slash, so name the origin.
    servers: [{ url: origin, description: 'This host' }],
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: 'never',
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    hideDarkModeToggle: false,
    documentDownloadType: 'json',
    defaultOpenAllTags: false,
    operationTitleSource: 'summary',
    // The service's own name only: no vendor link on the page.
    customCss: 'a[href*="//www.scalar.com"] { display: none; }',
    // The client secret typed into the page never reaches localStorage.
    persistAuth: false,
    authentication: {
      preferredSecurityScheme: 'idToken',
      securitySchemes: {
        oauth: {
          flows: {
            authorizationCode: {
              authorizationUrl: `${config.authUrl}/oauth/authorize`,
              tokenUrl,
              // Scalar's "Refresh" speaks RFC 6749 (grant_type=refresh_token with client
              // authentication): the token endpoint, on the page's own origin like tokenUrl (it works
              // for clients with the refresh_token grant).
              refreshUrl: tokenUrl,
              'x-scalar-redirect-uri': referenceRedirectUri(origin),
              'x-usePkce': 'SHA-256',
              selectedScopes: ['all'],
              ...(clientId ? { 'x-scalar-client-id': clientId } : {}),
            },
          },
        },
      },
    },
  };
}

function contentSecurityPolicy(nonce: string, config: Config): string {
  const authOrigin = config.authUrl === config.baseUrl ? "'self'" : `'self' ${new URL(config.authUrl).origin}`;
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    // Scalar injects some <style> elements without the nonce at run time; styles only, so scripts
    // stay locked to the nonce.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    `form-action ${authOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

// Without an icon link browsers ask for /favicon.ico, which the API does not serve.
const NO_FAVICON = '<link rel="icon" href="data:," />';
const NO_SCRIPT = `<noscript><p>The interactive reference needs JavaScript. The OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>`;

export async function registerReferencePage(app: App, config: Config): Promise<void> {
  // Only the bundle of the plugin is used: its page (with a nonce fixed at start-up) is not served.
  await app.register(async (assets) => {
    await assets.register(scalarPlugin, {
      routePrefix: ASSETS_PREFIX,
      configuration: { url: '/openapi.json' },
      hooks: {
        onRequest: (request, reply, done) => {
          if (request.url.split('?')[0] !== BUNDLE_PATH) return reply.callNotFound();
          // The bundle changes only with the installed package version: let browsers keep it a day.
          reply.header('cache-control', 'public, max-age=86400');
          done();
        },
      },
    });
  });

  app.get('/docs', { schema: { hide: true } }, async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const html = renderApiReference({ config: scalarConfiguration(config, pageOrigin(request), requestedClientId(request)), cdn: BUNDLE_PATH, nonce, pageTitle: PAGE_TITLE });
    return reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': contentSecurityPolicy(nonce, config),
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      })
      .send(html.replace('<meta charset="utf-8" />', `<meta charset="utf-8" />${NO_FAVICON}`).replace('<div id="app"></div>', `<div id="app"></div>${NO_SCRIPT}`));
  });
}
