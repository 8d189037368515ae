// GET /docs/errors: every error code the service answers, from the one table in error-codes.ts, each
// under an anchor named by its code — the page a problem's `type` ({base_url}/docs/errors#<code>)
// points to, so an integrator who meets a code can read what it means. Plain HTML, no script.
import type { App } from './http.ts';
import { escapeHtml, htmlPage } from './http.ts';
import { ERROR_CODES, OAUTH_ERROR_CODES, type ErrorCodeEntry } from './error-codes.ts';

function table(caption: string, codes: Record<string, ErrorCodeEntry>, prefix: string): string {
  const rows = Object.entries(codes).map(([code, entry]) =>
    `<tr id="${prefix}${escapeHtml(code)}"><td><code>${escapeHtml(code)}</code></td><td>${entry.status}</td><td>${escapeHtml(entry.title)}</td><td>${escapeHtml(entry.meaning)}</td></tr>`);
  return `<table><caption>${escapeHtml(caption)}</caption><thead><tr><th scope="col">code</th><th scope="col">status</th><th scope="col">title</th><th scope="col">meaning</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function errorPage(): string {
  return htmlPage('Error codes — Workforce Scheduling Service', [
    '<h1>Error codes</h1>',
    '<p>The company API answers errors as RFC 9457 problem details (<code>application/problem+json</code>) whose <code>type</code> links here and whose <code>code</code> is stable. Quote the <code>requestId</code> when you ask the operator about a failed call.</p>',
    table('Problem codes (company API, operator API, console)', ERROR_CODES, ''),
    '<h2>OAuth endpoints</h2><p>The token, idToken and revocation endpoints answer RFC 6749 <code>{error, error_description}</code>.</p>',
    table('OAuth error values', OAUTH_ERROR_CODES, 'oauth-'),
  ].join(''));
}

export function errorPageRoute(app: App): void {
  const html = errorPage();
  app.get('/docs/errors', { schema: { hide: true } }, async (_request, reply) =>
    reply.headers({ 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'", 'cache-control': 'public, max-age=3600' }).send(html));
}
