// Headers of the service's own HTML pages (login, errors, demo callback): a strict CSP that allows
// only the shared inline stylesheet (by hash), no framing, no referrer (the callback URL holds a
// code), no caching, and no CORS headers at all.
import { createHash } from 'node:crypto';

/** The one inline stylesheet of every page (htmlPage), allowed by its hash. */
export const PAGE_STYLE = 'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}label{display:block;margin-top:1rem;font-weight:600}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem}.error{color:#b00020;background:#fdecea;padding:.75rem;border-radius:4px}code,pre{background:#f4f4f6;padding:.2rem .4rem;border-radius:4px;overflow-x:auto}pre{padding:.75rem;white-space:pre-wrap;word-break:break-all}';

const STYLE_SOURCE = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`;

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
