// One HTTP attempt of a webhook message: POST the signed body to the endpoint, connecting only to an
// address checked just before (destination.ts, platform/outbound-destination.ts), with WEBHOOK_TIMEOUT_MS for the whole exchange.
// Redirects are not followed: a 3xx is a failed attempt. The status decides the attempt; of the answer's
// body at most MAX_ANSWER_BYTES are read (and dropped) before the same deadline, or the connection is
// destroyed: a receiver streaming an endless body would otherwise be read for ever. Connections are
// kept alive per destination, so a busy endpoint gets its messages over one socket instead of a
// handshake each (an answer read to its end within the cap and the deadline gives its socket back).
import http from 'node:http';
import https from 'node:https';
import { DestinationRefused, hostOf, pinnedLookup, resolvePublic, type ResolvedAddress } from '../platform/outbound-destination.ts';
import { InvalidWebhookUrl, parseDestination, type DestinationPolicy } from './destination.ts';

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  policy: DestinationPolicy;
}

export interface AttemptOutcome {
  /** The answer's status, or null when none arrived (refused destination, network error, timeout). */
  statusCode: number | null;
  /** What went wrong, in words (null on success). */
  error: string | null;
  durationMs: number;
  /** A Retry-After of a 429 or 503, in milliseconds. */
  retryAfterMs: number | null;
}

const USER_AGENT = 'wfs-webhooks/1 (Standard Webhooks)';

/** The most of an answer's body read: enough for the short acknowledgements receivers send. */
export const MAX_ANSWER_BYTES = 4 * 1024;

/** Seconds or an HTTP date (RFC 9110 §10.2.3) → milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function describeNetworkError(error: Error & { code?: string }): string {
  if (error instanceof DestinationRefused || error instanceof InvalidWebhookUrl) return error.message;
  return error.code ? `${error.code}: ${error.message}` : error.message;
}

/** Sends attempts over kept-alive connections of its own; `close` ends them. */
export class Sender {
  readonly #agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 8 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 8 }),
  };

  attempt(request: AttemptRequest): Promise<AttemptOutcome> {
    return attempt(request, this.#agents);
  }

  close(): void {
    this.#agents['http:'].destroy();
    this.#agents['https:'].destroy();
  }
}

async function attempt(request: AttemptRequest, agents: { 'http:': http.Agent; 'https:': https.Agent }): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timedOut = { statusCode: null, error: `no answer within ${request.timeoutMs} ms`, retryAfterMs: null };
  // Started before the name is resolved: WEBHOOK_TIMEOUT_MS is the whole exchange's. Runs until the
  // answer has ended, not only until its status line: a body still coming at the deadline ends the connection.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), request.timeoutMs);
  timer.unref();
  let url: URL;
  let addresses: ResolvedAddress[];
  try {
    url = parseDestination(request.url, request.policy);
    addresses = await resolvePublic(hostOf(url), { ...request.policy, signal: deadline.signal });
  } catch (error) {
    clearTimeout(timer);
    if (deadline.signal.aborted) return { ...timedOut, durationMs: elapsed() };
    return { statusCode: null, error: `destination refused: ${(error as Error).message}`, durationMs: elapsed(), retryAfterMs: null };
  }
  if (deadline.signal.aborted) return { ...timedOut, durationMs: elapsed() };
  const protocol = url.protocol as 'http:' | 'https:';
  const transport = protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const outgoing = transport.request(url, {
      method: 'POST',
      agent: agents[protocol],
      lookup: pinnedLookup(addresses),
      headers: { ...request.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body), 'user-agent': USER_AGENT },
    });
    deadline.signal.addEventListener('abort', () => {
      settle(timedOut);
      outgoing.destroy();
    }, { once: true });
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const success = status >= 200 && status < 300;
      const retryAfter = status === 429 || status === 503 ? retryAfterMs(response.headers['retry-after'], Date.now()) : null;
      settle({ statusCode: status, error: success ? null : `HTTP ${status}`, retryAfterMs: retryAfter });
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) outgoing.destroy();
      });
      response.on('end', () => clearTimeout(timer));
      response.on('error', () => {});
    });
    outgoing.on('error', (error) => settle({ statusCode: null, error: describeNetworkError(error), retryAfterMs: null }));
    outgoing.end(request.body);
  });
}
