// What the HTTP server does about slow, oversized and too many connections (CONTRACT §4): a request
// not fully arrived within REQUEST_TIMEOUT_MS (default 30 s) is answered 408, headers over Node's
// 16 KiB limit 431, an unparsable request 400 — each as problem+json with an X-Request-Id, though no
// route (and so no Fastify hook) ever saw it — and one address may hold at most
// MAX_CONNECTIONS_PER_ADDRESS connections. Without these, 200 connections trickling a byte every
// 10 s stayed open for minutes.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { ERROR_CODES, problemType, type ErrorCode } from './error-codes.ts';

export interface ConnectionLimits {
  /** Milliseconds for a whole request (headers and body) to arrive. */
  requestTimeoutMs: number;
  /** Connections one peer address may hold at once; 0 for no cap. */
  maxConnectionsPerAddress: number;
}

/**
 * Fastify's server options for `limits`. Node checks the timeouts only every
 * connectionsCheckingInterval (30 s by default): a tenth of the timeout keeps the answer close to it.
 * A connection with no traffic at all (not even a response being read) is closed after twice the
 * request timeout, and never before an idle keep-alive connection would be (Fastify: 72 s).
 */
export function serverOptions(limits: ConnectionLimits) {
  const { requestTimeoutMs } = limits;
  return {
    requestTimeout: requestTimeoutMs,
    connectionTimeout: Math.max(2 * requestTimeoutMs, 120_000),
    http: { headersTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeoutMs / 10))) },
  };
}

const CLOSE_GRACE_MS = 500;

const CLIENT_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', detail: 'The request did not arrive in time; send the whole body without pauses.' },
  HPE_HEADER_OVERFLOW: { code: 'headers_too_large', detail: 'The request headers are larger than 16 KiB.' },
};

function problemResponse(code: ErrorCode, detail: string, problemTypeBase: string): string {
  const requestId = randomUUID();
  const { status, title } = ERROR_CODES[code];
  const body = JSON.stringify({ type: problemType(problemTypeBase, code), title, status, detail, code, requestId });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/problem+json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Fastify's `clientErrorHandler`: Node's refusals of a request (too slow, headers too large, not
 * HTTP) in the problem shape. A peer that reset the connection is only logged: nothing can reach it.
 */
export function answerClientError(this: { log: FastifyBaseLogger; problemTypeBase: string }, error: Error & { code?: string }, socket: Socket): void {
  const known = CLIENT_ERRORS[error.code ?? ''];
  this.log.info({ code: error.code, remoteAddress: socket.remoteAddress }, known ? `client error: ${known.code}` : 'client error: not a valid HTTP request');
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, detail } = known ?? { code: 'bad_request', detail: 'The request is not valid HTTP/1.1.' };
  // Only while nothing has been answered on this connection yet (a response in flight would be garbled).
  if (socket.writable && socket.bytesWritten === 0) socket.end(problemResponse(code, detail, this.problemTypeBase));
  // Closed for good a little later: destroyed at once with the peer's bytes still unread, the close
  // is a reset, which can make the peer drop the answer before reading it.
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

/**
 * Caps the connections of one peer address: one more is closed at once, before a byte is read. Off
 * when the service is behind a proxy (TRUST_PROXY), whose own address every connection comes from;
 * the proxy is then the place for the cap.
 */
export function capConnectionsPerAddress(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
