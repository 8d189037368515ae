// The service answering a test in process: `fetch` as the test writes it, carried out by Fastify's
// `app.inject()` instead of a socket. The request is the one `fetch` would send (the same default
// headers, the same Content-Type for a string or form body) and the answer a WHATWG `Response`,
// decompressed as `fetch` decompresses it, redirects followed unless `redirect: 'manual'`. What is
// about the socket itself (timeouts, header limits, connection caps, keep-alive) needs a real port.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { App } from '../../src/platform/http.ts';

// What Node's fetch (undici) sends when the caller does not say otherwise.
const FETCH_DEFAULT_HEADERS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const MAX_REDIRECTS = 20;
const DECODERS: Record<string, (body: Buffer) => Buffer> = { gzip: gunzipSync, 'x-gzip': gunzipSync, deflate: inflateSync, br: brotliDecompressSync };

// The apps answering in this process, by the origins they serve (their BASE_URL and AUTH_URL).
const apps = new Map<string, App>();

/** Answers requests to the origins of `urls` with `app` until the returned function is called. */
export function serveInProcess(app: App, urls: string[]): () => void {
  const distinct = [...new Set(urls.map((url) => new URL(url).origin))];
  const taken = distinct.find((origin) => apps.has(origin));
  if (taken) throw new Error(`an app already answers ${taken} in process`);
  for (const origin of distinct) apps.set(origin, app);
  return () => {
    for (const origin of distinct) if (apps.get(origin) === app) apps.delete(origin);
  };
}

/** Whether an app answers `url`'s origin in process. */
export function answeredInProcess(url: string | URL): boolean {
  return apps.has(new URL(url).origin);
}

/**
 * `fetch` for any URL: in process when an app answers its origin, over the network otherwise. The
 * helpers that are handed a URL (not a server) send through this.
 */
export const fetchAny: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const app = apps.get(new URL(request.url).origin);
  return app ? injected(app, request) : fetch(request);
};

function decoded(body: Buffer, encoding: string | undefined): Buffer {
  // As fetch: codings applied in order are undone in reverse; an unknown one leaves the body as sent.
  const codings = (encoding ?? '').toLowerCase().split(',').map((c) => c.trim()).filter((c) => c && c !== 'identity');
  if (codings.some((c) => !DECODERS[c])) return body;
  return codings.reduceRight((data, coding) => DECODERS[coding]!(data), body);
}

function responseHeaders(raw: Record<string, string | string[] | number | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const one of [value].flat()) headers.append(name, String(one));
  }
  return headers;
}

/** The request a redirect leads to, as fetch follows it (method, body and credentials it keeps or drops). */
function redirected(request: Request, status: number, location: string, body: Buffer): Request {
  const target = new URL(location, request.url);
  const toGet = status === 303 ? request.method !== 'HEAD' : (status === 301 || status === 302) && request.method === 'POST';
  const headers = new Headers(request.headers);
  if (toGet) for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) headers.delete(name);
  if (target.origin !== new URL(request.url).origin) for (const name of ['authorization', 'cookie', 'proxy-authorization', 'host']) headers.delete(name);
  return new Request(target, {
    method: toGet ? 'GET' : request.method,
    headers,
    redirect: request.redirect,
    ...(toGet || body.length === 0 ? {} : { body }),
  });
}

async function injected(app: App, request: Request, hops = 0): Promise<Response> {
  if (request.signal.aborted) throw request.signal.reason;
  const url = new URL(request.url);
  const headers: Record<string, string> = { ...FETCH_DEFAULT_HEADERS, host: url.host };
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : Buffer.alloc(0);
  // A request over a socket always waits for the event loop's next turn; in process it could be
  // answered in microtasks alone (SQLite answers synchronously), and a test polling in a loop would
  // starve the timers the service's grouped commits wait on.
  await nextTurn();
  const answer = await app.inject({
    method: request.method as 'GET',
    url: url.pathname + url.search,
    headers,
    ...(request.body ? { payload: body } : {}),
  });
  const location = answer.headers.location;
  if (REDIRECTS.has(answer.statusCode) && typeof location === 'string' && request.redirect !== 'manual') {
    if (request.redirect === 'error' || hops >= MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error(`redirect to ${location}`) });
    const next = redirected(request, answer.statusCode, location, body);
    const target = apps.get(new URL(next.url).origin);
    const response = target ? await injected(target, next, hops + 1) : await fetch(next);
    Object.defineProperty(response, 'redirected', { value: true });
    return response;
  }
  const headerValues = responseHeaders(answer.headers);
  const payload = NULL_BODY_STATUSES.has(answer.statusCode) || request.method === 'HEAD' ? null : decoded(answer.rawPayload, headerValues.get('content-encoding') ?? undefined);
  const response = new Response(payload, { status: answer.statusCode, statusText: answer.statusMessage, headers: headerValues });
  Object.defineProperty(response, 'url', { value: request.url });
  return response;
}
