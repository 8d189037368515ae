// The API reference page at /docs: Scalar (interactive "try it" and the OAuth flow from the page),
// its standalone bundle served from the installed package (@scalar/fastify-api-reference ships it),
// nothing loaded from another origin, and a CSP whose nonce is fresh on every request. The page is
// rendered here rather than by the plugin because the plugin fixes its nonce at registration; the
// plugin serves only the bundle.
//
// Everything host-dependent is taken from the request, so the page works from whatever host name
// opened it (127.0.0.1, localhost, a proxy's name): the document's server is relative (`/`) and the
// OAuth URLs and redirect URI given to the page are absolute on the page's own origin.
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import scalarPlugin from '@scalar/fastify-api-reference';
import { renderApiReference } from '@scalar/client-side-rendering';
import type { App } from './http.ts';
import type { Config } from './config.ts';

export const REFERENCE_PATH = '/docs';
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

/** Scalar's configuration for one request: the OAuth endpoints and redirect URI on the page's origin. */
function scalarConfiguration(config: Config, origin: string): Record<string, unknown> {
  // The login page lives on AUTH_URL; when it is the API's own host, follow the page's host name.
  const authOrigin = config.authUrl === config.baseUrl ? origin : config.authUrl;
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
    authentication: {
      preferredSecurityScheme: 'idToken',
      securitySchemes: {
        oauth: {
          flows: {
            authorizationCode: {
              authorizationUrl: `${authOrigin}/oauth/authorize`,
              tokenUrl: `${origin}/api/v1/iam/oauth/token`,
              'x-scalar-redirect-uri': referenceRedirectUri(origin),
              'x-usePkce': 'SHA-256',
              selectedScopes: ['all'],
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

  app.get(REFERENCE_PATH, { schema: { hide: true } }, async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const html = renderApiReference({ config: scalarConfiguration(config, pageOrigin(request)), cdn: BUNDLE_PATH, nonce, pageTitle: PAGE_TITLE });
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
