// Shared HTTP plumbing: the typed Fastify instance and the one error handler that
// turns every failure into the contract's shape (problem+json, OAuth JSON or an HTML page) without
// ever leaking a stack trace or SQL.
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { OAuthError, ProblemError, titleFor } from './errors.ts';
import { validationErrors, validationFailed } from './validation.ts';
import { problemType } from './error-codes.ts';
import { MAX_JSON_VALUES, jsonBodyParser, plainJson, type JsonBodyOptions, type JsonBodyParser } from './json-body.ts';
import { problemResponse, problemResponses } from './schemas.ts';
import { PAGE_STYLE, pageSecurityHeaders } from './page-security.ts';
import { sqliteErrorCode } from './db/sqlite-dialect.ts';

/**
 * Bodies a route takes unless it says otherwise: a token request, a login form or an operator action
 * is a few hundred bytes, and every byte more is parsing time (CONTRACT §4: no request holds the event
 * loop over 50 ms).
 */
export const DEFAULT_BODY_LIMIT = 64 * 1024;
/** Every company API endpoint takes bodies up to 2 MiB: CONTRACT §4, "Body over 2 MiB: 413" (secured-api.ts). */
export const COMPANY_API_BODY_LIMIT = 2 * 1024 * 1024;

/** 65536 → "64 KiB", 2097152 → "2 MiB". */
function sizeInWords(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** How a route reports errors: the company API (default), OAuth endpoints, or browser pages. */
export type ErrorFormat = 'problem' | 'oauth' | 'html';

declare module 'fastify' {
  interface FastifyInstance {
    /** BASE_URL, for the `type` of problem answers (set by installErrorHandling). */
    problemTypeBase: string;
    /** The answer to a request no route took: 405 with Allow for a known path, else 404 (set by installErrorHandling). */
    noRouteProblem(request: FastifyRequest): ProblemError;
  }
  interface FastifyContextConfig {
    errorFormat?: ErrorFormat;
  }
}

/** What the OAuth endpoints read (RFC 6749 §4.1.3 form fields, or JSON as a convenience). */
export const OAUTH_BODY_HINT = 'Send the request body as application/x-www-form-urlencoded (or application/json).';

/** Maps a thrown value to a ProblemError (4xx from Fastify itself, or an opaque 500). */
export function toProblem(error: FastifyError, bodyLimit = COMPANY_API_BODY_LIMIT): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error.validation) {
    const context = error.validationContext ?? 'body';
    return validationFailed(context, validationErrors(error));
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return new ProblemError({ code: 'payload_too_large', detail: `The request body is larger than ${sizeInWords(bodyLimit)}, the most this endpoint takes.` });
  if (status === 415) return new ProblemError({ code: 'unsupported_media_type', detail: 'Send the body as application/json.' });
  if (status === 429) return new ProblemError({ code: 'rate_limited', detail: 'Too many requests; retry after the time in Retry-After.' });
  if (status >= 400 && status < 500) {
    const malformed = error.code?.startsWith('FST_ERR_CTP') || error instanceof SyntaxError;
    return new ProblemError({ status, code: malformed ? 'malformed_body' : 'bad_request', detail: malformed ? 'The request body is not valid JSON.' : error.message });
  }
  if (status === 503) return new ProblemError({ code: 'unavailable', detail: 'The service is temporarily unavailable; retry shortly.' });
  return new ProblemError({ code: 'internal_error', detail: 'An unexpected error occurred; quote the requestId when reporting it.' });
}

/**
 * The peer reset or closed the connection while its request was still arriving (ECONNRESET "aborted").
 * Only an incomplete request counts: once the body is in, the request stream is destroyed anyway, and
 * an ECONNRESET then comes from the database, which is a 503.
 */
function clientWentAway(request: FastifyRequest, error: FastifyError): boolean {
  return !request.raw.complete && (error.code === 'ECONNRESET' || error.message === 'aborted');
}

/** SQLite's SQLITE_BUSY and SQLITE_LOCKED: another connection (another process on the same file) held the write lock for over 5 s (db/sqlite-dialect.ts). */
const SQLITE_LOCK_ERRORS = [5, 6];

/**
 * PostgreSQL codes that say the server cannot take the request now: it is shutting down (57P01) or
 * starting (57P03), a connection failed or broke (08xxx), or it is out of connections (53300, also
 * "too many connections for role/database"): all pass, so a client should retry (503), not report a fault.
 */
const POSTGRES_UNAVAILABLE = ['57P01', '57P03', '08006', '08001', '08003', '53300'];

/** Whether `error` means the database is briefly unavailable (answered 503 with Retry-After), not a fault of ours. */
export function isDatabaseDown(error: unknown): boolean {
  const { code = '' } = (error as { code?: string } | null) ?? {};
  if (code === 'ERR_SQLITE_ERROR') return SQLITE_LOCK_ERRORS.includes(sqliteErrorCode(error) ?? 0);
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', ...POSTGRES_UNAVAILABLE].includes(code)
    || /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|not queryable|Query read timeout/i.test((error as Error | null)?.message ?? '');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

export function htmlPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head><body>${body}</body></html>`;
}

/** Every HTML error page carries the page headers (no-store, the CSP), whichever route it answers and however early it failed. */
function sendErrorPage(reply: FastifyReply, status: number, headers: Record<string, string>, message: string): FastifyReply {
  return reply.code(status).headers({ ...pageSecurityHeaders(), ...headers }).type('text/html; charset=utf-8')
    .send(htmlPage(titleFor(status), `<h1>${escapeHtml(titleFor(status))}</h1><p class="error" role="alert">${escapeHtml(message)}</p>`));
}

/** The problem+json body of `problem` (CONTRACT §4). */
export function problemBody(request: FastifyRequest, problem: ProblemError): Record<string, unknown> {
  return {
    type: problemType(request.server.problemTypeBase, problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    ...(problem.errors ? { errors: problem.errors } : {}),
    requestId: request.id,
  };
}

/** Findings serialised per turn of the event loop: a rejected batch can list 50,000 (3.4 MB of JSON, 20–80 ms in one go here). */
const FINDINGS_PER_TURN = 2_000;

/**
 * The problem's JSON text, its findings serialised in slices with a turn of the event loop between
 * (CONTRACT §4: no request holds the loop over 50 ms); the same text JSON.stringify would give.
 */
async function problemText(body: Record<string, unknown>, errors: readonly unknown[]): Promise<string> {
  const { requestId, errors: _listedBelow, ...head } = body;
  let text = `${JSON.stringify(head).slice(0, -1)},"errors":[`;
  for (let at = 0; at < errors.length; at += FINDINGS_PER_TURN) {
    if (at > 0) {
      await nextTurn();
      text += ',';
    }
    text += JSON.stringify(errors.slice(at, at + FINDINGS_PER_TURN)).slice(1, -1);
  }
  return `${text}],"requestId":${JSON.stringify(requestId)}}`;
}

/**
 * No cache keeps a refusal: it is no representation of the resource (a read's own answers are
 * `private, no-cache`, revalidated by their ETag), and a 404 or 405 would be cacheable by default
 * (RFC 9111 §4.2.2). The OpenAPI document declares it on every problem answer (openapi.ts).
 */
const PROBLEM_CACHING = { 'cache-control': 'no-store' };

function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: ProblemError): FastifyReply | Promise<FastifyReply> {
  const answer = reply.code(problem.status).headers({ ...problem.headers, ...PROBLEM_CACHING }).type('application/problem+json');
  const body = problemBody(request, problem);
  if (!problem.errors || problem.errors.length <= FINDINGS_PER_TURN) return answer.send(body);
  return problemText(body, problem.errors).then((text) => answer.send(text));
}

/**
 * Fastify's own refusals before routing (a badly percent-encoded path, say) skip the hooks and the
 * error handler: this gives them the request id and the problem shape like every other answer.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  void sendProblem(request, reply, toProblem(error));
}

/** Fastify's refusals of a body by its size or type, which an unknown path answers as such instead (404/405). */
const BODY_REFUSALS = new Set(['FST_ERR_CTP_BODY_TOO_LARGE', 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_INVALID_CONTENT_LENGTH']);

/** `problemTypeBase`: BASE_URL, so a problem's `type` is {base_url}/docs/errors#<code>. */
export function installErrorHandling(app: FastifyInstance, problemTypeBase: string): void {
  app.decorate('problemTypeBase', problemTypeBase);
  const methodsOf = registeredMethods(app);
  const noRouteProblem = (request: FastifyRequest): ProblemError => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = methodsOf(path);
    if (allowed.length > 0) return new ProblemError({ code: 'method_not_allowed', detail: `${path} answers ${allowed.join(', ')}, not ${request.method}.`, headers: { Allow: allowed.join(', ') } });
    return new ProblemError({ code: 'not_found', detail: `No route for ${request.method} ${path}.` });
  };
  // Scopes with a not-found handler of their own (the console's pages) answer the same, in their format.
  app.decorate('noRouteProblem', noRouteProblem);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const format = request.routeOptions.config?.errorFormat ?? 'problem';
    let problem: ProblemError;
    if (error instanceof OAuthError) {
      if (format === 'html') return sendErrorPage(reply, error.status, error.headers, error.message);
      return reply.code(error.status).headers({ ...error.headers, 'Cache-Control': 'no-store' }).send({ error: error.error, error_description: error.message });
    } else if (clientWentAway(request, error)) {
      // Nobody hears an answer now; a client dropping mid-body is routine, not a fault of ours.
      request.log.info({ code: error.code }, 'client closed the connection before the request was complete');
      problem = new ProblemError({ code: 'client_closed_request', detail: 'The client closed the connection.' });
    } else if (request.is404 && BODY_REFUSALS.has(error.code)) {
      // No route was found: that is the answer, whatever the body (the not-found route keeps the
      // default body limit, so a large body to an unknown path met it first).
      problem = noRouteProblem(request);
    } else if (isDatabaseDown(error)) {
      request.log.error({ err: error }, 'database unavailable');
      problem = new ProblemError({ code: 'database_unavailable', detail: 'The database is unavailable; retry shortly.', headers: { 'Retry-After': '1' } });
    } else {
      problem = toProblem(error, request.routeOptions.bodyLimit);
      if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    }
    if (format === 'oauth') {
      const oauthCode = problem.status >= 500 ? 'server_error' : 'invalid_request';
      const description = problem.status === 415 ? OAUTH_BODY_HINT : problem.message;
      return reply.code(problem.status).headers({ ...problem.headers, 'Cache-Control': 'no-store' }).send({ error: oauthCode, error_description: description });
    }
    if (format === 'html') return sendErrorPage(reply, problem.status, problem.headers, problem.message);
    return sendProblem(request, reply, problem);
  });

  app.setNotFoundHandler((request, reply) => sendProblem(request, reply, noRouteProblem(request)));
}

/**
 * The methods each registered path answers, so a known path asked with another method is a 405 with
 * `Allow` (RFC 9110 §15.5.6) rather than a 404. Only consulted when no route matched.
 */
function registeredMethods(app: FastifyInstance): (path: string) => string[] {
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  // Sees only routes registered after it: installErrorHandling runs before any route is added.
  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+').replace(/\\\*$/, '.*');
    const pattern = new RegExp(`^${escaped}/?$`);
    routes.push({ pattern, methods: ([] as string[]).concat(route.method) });
  });
  return (path) => [...new Set(routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods))].sort();
}

/** preValidation of a route whose body is optional: a request without one is checked (and handled) as `{}`. */
export function absentBodyIsEmpty(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  request.body ??= {};
  done();
}

/**
 * Makes `app` (an encapsulated route scope) accept only application/json: any other content type is
 * 415, malformed JSON 400, a body over bodyLimit 413. Bodies are read by jsonBodyParser (UTF-8,
 * depth, measured first; unless `options` say otherwise, more than MAX_JSON_VALUES values are a 400
 * before parsing) and parsed with `parse` when given (the inbound routes keep each number's text),
 * otherwise as Fastify's own parser does.
 */
export function acceptJsonOnly(app: FastifyInstance, parse: JsonBodyParser = plainJson(app), options: JsonBodyOptions = { maxValues: MAX_JSON_VALUES }): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonBodyParser(parse, options));
}

/**
 * Declares, in the OpenAPI document, the refusals of a body on every route of `app` (a scope that
 * called acceptJsonOnly) that takes one: 413 over the route's own limit, 415 for any other type.
 * Told here once rather than by each route, whose limit its scope may set.
 */
export function documentBodyRefusals(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body) return;
    const limit = sizeInWords(route.bodyLimit ?? app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT);
    route.schema = { ...route.schema, response: { ...(route.schema.response as object | undefined), 413: problemResponse(`Body over ${limit}`), ...problemResponses(415) } };
  });
}
