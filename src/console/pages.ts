// Rendering of console pages: every page goes through the one layout with a fresh CSP nonce, the
// signed-in person's navigation and a CSRF token for its forms. Eta escapes every interpolation;
// only the layout's body is inserted raw.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleSession } from './sessions.ts';
import { ORGANISATION_SECTIONS, type NavSection } from './navigation.ts';
import { FORMATTERS } from './format.ts';

/**
 * Scripts only with this response's nonce (the small progressive-enhancement script), styles and
 * images only from the service, forms only to the service, never in a frame, no referrer (an
 * invitation's URL holds its token), never cached (pages show secrets).
 */
export function consoleSecurityHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  };
}

export interface PageContext {
  /** {auth_url}'s path + /console: every link and form action starts with it. */
  root: string;
  csrfFor(request: FastifyRequest, reply: FastifyReply): string;
}

export interface PageData {
  title: string;
  [key: string]: unknown;
}

/** The session a console route was reached with (set by the guard); undefined on public pages. */
export function sessionOf(request: FastifyRequest): ConsoleSession | undefined {
  return request.consoleSession;
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession?: ConsoleSession;
  }
}

function visibleSections(session: ConsoleSession | undefined): NavSection[] {
  if (!session || session.stage !== 'active') return [];
  return ORGANISATION_SECTIONS.filter((s) => !s.adminOnly || session.user.role === 'admin');
}

export async function renderPage(context: PageContext, request: FastifyRequest, reply: FastifyReply, template: string, data: PageData, status = 200): Promise<FastifyReply> {
  const nonce = randomBytes(16).toString('base64');
  const session = sessionOf(request);
  const active = session?.stage === 'active' ? session : undefined;
  reply.code(status).headers(consoleSecurityHeaders(nonce)).type('text/html; charset=utf-8');
  return reply.view(template, {
    ...FORMATTERS,
    ...data,
    root: context.root,
    nonce,
    csrf: context.csrfFor(request, reply),
    me: active?.user,
    isAdmin: active?.user.role === 'admin',
    sections: visibleSections(session),
    here: request.url.split('?')[0],
  });
}
