// Headers of the service's own HTML pages (login, errors, demo callback): a strict CSP that allows
// only the shared inline stylesheet (by hash), no framing, no referrer (the callback URL holds a
// code), no caching, and no CORS headers at all.
import { createHash } from 'node:crypto';
import { htmlPage } from '../platform/http.ts';

const STYLE_SOURCE = (() => {
  const style = /<style>([\s\S]*?)<\/style>/.exec(htmlPage('', ''))?.[1] ?? '';
  return `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
})();

/**
 * `formTargets`: origins a form on the page may post to or be redirected to. Browsers apply
 * form-action to the redirect after a submission too, so the login page lists the client's origin.
 */
export function pageSecurityHeaders(formTargets: string[] = []): Record<string, string> {
  const formAction = ["'self'", ...new Set(formTargets)].join(' ');
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_SOURCE}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  };
}

/** What each page header means to a reader of the OpenAPI document (HtmlPage declares them on every page). */
export const PAGE_HEADER_MEANINGS: Record<keyof ReturnType<typeof pageSecurityHeaders>, string> = {
  'Content-Security-Policy': 'Only the page\'s own stylesheet, no script; forms post only to this service (and the login page\'s to the client\'s redirect origin); never framed.',
  'X-Frame-Options': '`DENY`: never framed (for browsers without CSP frame-ancestors).',
  'X-Content-Type-Options': '`nosniff`.',
  'Referrer-Policy': '`no-referrer`: the page\'s address may hold a code.',
  'Cache-Control': '`no-store`.',
  Pragma: '`no-cache` (HTTP/1.0 caches).',
};
