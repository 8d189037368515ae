// The cached-answer lane (issue 16; docs/architecture.md, "The cached-answer lane"): a request listener
// in front of Fastify's that answers a GET of a registered path straight from the response cache,
// without Fastify's lifecycle (routing, Request/Reply, the per-request child logger, hook runners:
// 6–9 µs of a ~30 µs answer, docs/benchmarks.md). It answers only when it can send exactly the
// answer Fastify would send — the same status, headers in the same order and body, the same rate-limit
// count and request-duration observation — and hands anything else to Fastify untouched, having
// counted, written and logged nothing. What it cannot repeat, it leaves to Fastify: logging (it
// engages only while the logger is above `info`), errors (401, 400, 429 …), a URL with a %-escape,
// HEAD, a representation not yet made (the first compressed request of an entry), and every request
// while the server is closing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import { CACHED_HEADERS, representation, type CachedResponse } from './response-cache.ts';

/**
 * A feature's answer for one path: the cached entry for this principal and query (the part of the URL
 * after `?`, undefined without one), or undefined when the request is not one it can answer from the
 * cache right now (an unknown or malformed query, a stale company record, no entry yet).
 */
export type CachedAnswerer<Principal> = (principal: Principal, query: string | undefined) => CachedResponse | undefined;

/** What a scope of routes checks before its answers (the secured API: the bearer token, the rate limit). */
export interface LaneGuard<Principal> {
  /** The request's principal when it is known without any work that could fail; undefined hands over. */
  principal(request: IncomingMessage): Principal | undefined;
  /** Counts the request and returns its X-RateLimit-* headers (name, value …); undefined, nothing counted, hands over. */
  count(principal: Principal): string[] | undefined;
}

export interface LaneOptions {
  /** The request id Fastify's genReqId would give this request. */
  requestId(request: IncomingMessage): string;
  /** The request-duration observation Fastify's onResponse hook makes (undefined when none is kept). */
  observe: ((route: string, status: number, seconds: number) => void) | undefined;
  /** Told of each answer the lane gave (tests prove which path served). */
  onAnswer?: (path: string) => void;
}

/** What the lane reads of the Fastify instance it stands in front of. */
interface Framework {
  /** Its logger's level: undefined when it has no logger (no lines to write). */
  log: { level?: string };
  addHook(name: 'preClose', hook: (done: () => void) => void): unknown;
}

/** Fastify's own server options a serverFactory has to apply (as Fastify's createServer does without one). */
interface ServerSettings {
  http?: object;
  keepAliveTimeout: number;
  requestTimeout: number;
  connectionTimeout: number;
  maxRequestsPerSocket?: number | null;
}

/** Logger levels at which Fastify writes no line per request (undefined: no logger at all). */
const ABOVE_INFO = new Set([undefined, 'warn', 'error', 'fatal', 'silent']);

/**
 * Whether a lane could ever answer under these settings: a logger above `info` (or none) and the API
 * rate limit counted in memory. Otherwise the app is built without one, so Fastify creates its own
 * server as usual (with `HOST=localhost`, say, it listens on every address the name resolves to;
 * behind a `serverFactory` Fastify binds the first only).
 */
export function laneCanAnswer(settings: { logLevel: string | undefined; sharedRateLimit: boolean }): boolean {
  return ABOVE_INFO.has(settings.logLevel) && !settings.sharedRateLimit;
}

type Route = (request: IncomingMessage, response: ServerResponse, query: string | undefined, startedAt: number) => boolean;

export class CachedAnswerLane {
  readonly #options: LaneOptions;
  readonly #routes = new Map<string, Route>();
  #framework: Framework | undefined;
  #closing = false;

  constructor(options: LaneOptions) {
    this.#options = options;
  }

  /** Fastify's `serverFactory`: the HTTP server Fastify would create, with the lane in front of `handler`. */
  readonly serverFactory: FastifyServerFactory<Server> = (handler, options) => {
    const settings = options as unknown as ServerSettings & { https?: unknown; http2?: unknown };
    // The lane answers plain HTTP/1.1 (TLS ends at the load balancer): refuse to stand in front of anything else.
    if (settings.https || settings.http2) throw new Error('the cached-answer lane serves plain HTTP/1.1 only');
    const server = createServer(settings.http ?? {}, (request, response) => {
      let answered = false;
      try {
        answered = this.#answered(request, response);
      } catch {
        // A fault here has no Fastify error handler around it: Fastify answers the request instead.
      }
      if (!answered && !response.headersSent) handler(request, response);
    });
    server.keepAliveTimeout = settings.keepAliveTimeout;
    server.requestTimeout = settings.requestTimeout;
    server.setTimeout(settings.connectionTimeout);
    if (settings.maxRequestsPerSocket) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
    return server;
  };

  /** Binds the lane to the Fastify instance it fronts: its logger's level, and its closing (Fastify then answers 503). */
  attach(framework: Framework): void {
    this.#framework = framework;
    framework.addHook('preClose', (done) => {
      this.#closing = true;
      done();
    });
  }

  /** A scope of routes sharing one guard; returns how its features register an answerer for a literal path. */
  scope<Principal>(guard: LaneGuard<Principal>): (path: string, answerer: CachedAnswerer<Principal>) => void {
    return (path, answerer) => {
      this.#routes.set(path, (request, response, query, startedAt) => {
        const principal = guard.principal(request);
        if (principal === undefined) return false;
        const entry = answerer(principal, query);
        if (!entry) return false;
        const { coding, etag, notModified } = representation(entry, request.headers['accept-encoding'], request.headers['if-none-match']);
        const body = notModified ? undefined : coding ? entry.made[coding] : entry.body;
        if (!notModified && !body) return false;
        const limits = guard.count(principal);
        if (!limits) return false;
        this.#send(request, response, { path, etag, coding, limits, body, startedAt });
        return true;
      });
    };
  }

  /** Whether the lane answered; false leaves the request to Fastify as it came. */
  #answered(request: IncomingMessage, response: ServerResponse): boolean {
    const framework = this.#framework;
    // Fastify logs every request at `info` (with a child logger per request): only Fastify writes those lines.
    if (request.method !== 'GET' || this.#closing || !framework || !ABOVE_INFO.has(framework.log.level)) return false;
    // A GET with a body is Fastify's to judge; so is anything not a registered path exactly (a trailing
    // slash), and any %-escape: what it decodes to is checked there (unstorable-text.ts).
    if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined) return false;
    const url = request.url ?? '';
    if (url.includes('%')) return false;
    const mark = url.indexOf('?');
    const route = this.#routes.get(mark < 0 ? url : url.slice(0, mark));
    return route !== undefined && route(request, response, mark < 0 ? undefined : url.slice(mark + 1), performance.now());
  }

  /** Writes the answer with Fastify's headers in Fastify's order (x-request-id, the secured reads' cache-control, rate limit, then response-cache.ts's). */
  #send(request: IncomingMessage, response: ServerResponse, answer: { path: string; etag: string; coding: string | undefined; limits: string[]; body: Buffer | undefined; startedAt: number }): void {
    const { path, etag, coding, limits, body, startedAt } = answer;
    const headers = ['x-request-id', this.#options.requestId(request), 'cache-control', CACHED_HEADERS.cacheControl, ...limits, 'etag', etag, 'vary', CACHED_HEADERS.vary];
    if (body) {
      headers.push('content-type', CACHED_HEADERS.contentType);
      if (coding) headers.push('content-encoding', coding);
      headers.push('content-length', String(body.length));
    }
    const status = body ? 200 : 304;
    response.writeHead(status, headers);
    // Observed when the answer is handed to the system, as Fastify's onResponse hook is ('finish').
    const observe = this.#options.observe;
    if (observe) response.once('finish', () => observe(path, status, (performance.now() - startedAt) / 1000));
    response.end(body);
    this.#options.onAnswer?.(path);
  }
}
