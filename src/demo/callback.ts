// /demo/callback: the demo client's redirect URI (contract: operator side). It shows the code and state it
// received and the exact command that exchanges the code. The service stores only a hash of the
// client secret, so the command carries the placeholder <CLIENT_SECRET> (printed once by
// `wfs seed-demo` / `npm start`); everything else — client id, redirect URI, code — is filled in.
import { Type } from 'typebox';
import type { App } from '../platform/http.ts';
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import { escapeHtml, htmlPage } from '../platform/http.ts';
import { describeCode } from '../iam/codes.ts';
import { HtmlPage } from '../iam/oauth-schemas.ts';
import { pageSecurityHeaders } from '../platform/page-security.ts';
import { DEFAULT_AUDIENCE } from '../iam/tokens.ts';

const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 512 })),
    state: Type.Optional(Type.String({ maxLength: 4096 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 128 })),
    error_description: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

/** What the demo callback needs of the context (src/app/feature-options.ts builds it). */
export interface DemoCallbackDeps {
  readonly db: Db;
  readonly config: Pick<Config, 'issuer' | 'baseUrl' | 'authCodeTtl'>;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function exchangeCommand(config: Pick<Config, 'issuer'>, exchange: { code: string; clientId: string; redirectUri: string; usesPkce: boolean }): string {
  const body = {
    grant_type: 'authorization_code',
    code: exchange.code,
    redirect_uri: exchange.redirectUri,
    client_id: exchange.clientId,
    client_secret: '<CLIENT_SECRET>',
    audience: DEFAULT_AUDIENCE,
    ...(exchange.usesPkce ? { code_verifier: '<CODE_VERIFIER>' } : {}),
  };
  return `curl -s ${shellQuote(`${config.issuer}/oauth/token`)} -H 'Content-Type: application/json' \\\n  -d ${shellQuote(JSON.stringify(body))}`;
}

function field(label: string, value: string): string {
  return `<p>${escapeHtml(label)}:</p><pre>${escapeHtml(value)}</pre>`;
}

export async function demoCallbackRoutes(app: App, { deps }: { deps: DemoCallbackDeps }): Promise<void> {
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(pageSecurityHeaders());
  });

  app.get(
    '/demo/callback',
    {
      config: { errorFormat: 'html' },
      schema: {
        tags: ['demo'],
        operationId: 'demoCallback',
        summary: 'Redirect URI of the demo client: shows the code and the command that exchanges it',
        description: 'An HTML page for newcomers walking the flow with a browser and curl; the client secret appears as a placeholder.',
        querystring: CallbackQuery,
        response: { 200: HtmlPage('The code, the state and the curl command'), 400: HtmlPage('Bad query') },
      },
    },
    async (request, reply) => {
      const { code, state, error, error_description: description } = request.query;
      let body: string;
      if (error !== undefined) {
        body = `<h1>Authorization failed</h1><p class="error" role="alert">${escapeHtml(error)}${description ? `: ${escapeHtml(description)}` : ''}</p>${state !== undefined ? field('state', state) : ''}`;
      } else if (code === undefined) {
        body = '<h1>Demo callback</h1><p>This page receives the authorization code after you sign in at /oauth/authorize.</p>';
      } else {
        const known = await describeCode(deps.db, code);
        const command = known
          ? exchangeCommand(deps.config, { code, ...known })
          : undefined;
        body = [
          '<h1>Authorization code received</h1>',
          field('code', code),
          state !== undefined ? field('state', state) : '',
          `<p>The code is valid for ${deps.config.authCodeTtl} seconds and works once. Exchange it (replace &lt;CLIENT_SECRET&gt; with the API Client secret${known?.usesPkce ? ' and &lt;CODE_VERIFIER&gt; with your PKCE verifier' : ''}):</p>`,
          command ? `<pre id="command">${escapeHtml(command)}</pre>` : '<p class="error" role="alert">This code is not known to the service.</p>',
          `<p>Then call the API with the <code>id_token</code>: <code>curl -s ${escapeHtml(deps.config.baseUrl)}/api/v1/company/configuration -H "Authorization: Bearer &lt;ID_TOKEN&gt;"</code></p>`,
        ].join('\n');
      }
      return reply.type('text/html; charset=utf-8').send(htmlPage('Demo callback', body));
    },
  );
}
