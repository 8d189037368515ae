// Every request the service makes to an SSO provider (discovery, JWKS, token endpoint) goes through
// this fetch: https only, and the address each host name resolves to is checked in the connection's
// own DNS lookup (so a second resolution cannot swap in another address) — nothing loopback, private,
// link-local or otherwise not public unicast. SSO_ALLOW_INSECURE=1 (development, tests) allows http and
// such addresses. Answers are capped in size (1 MiB) and in total time (10 s from the request to the
// answer's last byte): the caller's signal (openid-client passes its own 30 s one) may end a call
// sooner, never later.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '../platform/public-address.ts';

const TIMEOUT_MS = 10_000;
const MAX_BODY_BYTES = 1024 * 1024;

/** Why a call to a provider failed before it had a usable answer (the categories of discovery-failure.ts). */
export class OutboundFailure extends Error {}
/** The destination is one the service does not call (the checks below). */
export class OutboundRefused extends OutboundFailure {}
/** No answer in time. */
export class OutboundTimeout extends OutboundFailure {}
/** An answer larger than the cap. */
export class OutboundTooLarge extends OutboundFailure {}

function checkedLookup(allowInsecure: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const refused = allowInsecure ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused) return callback(new OutboundRefused(`${hostname} resolves to ${refused.address}, which is not a public address.`), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      return first ? callback(null, first.address, first.family) : callback(new OutboundRefused(`${hostname} has no address.`), '', 4);
    });
  };
}

/** Refuses a URL the service must not call; literal IP hosts are checked here, names at lookup. */
export function checkOutboundUrl(url: URL, allowInsecure: boolean): void {
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) throw new OutboundRefused(`${url.origin} is not https.`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowInsecure && (isIP(host) ? !isPublicAddress(host) : host === 'localhost' || host.endsWith('.localhost'))) {
    throw new OutboundRefused(`${url.host} is not a public address.`);
  }
}

function readBody(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) response.destroy(new OutboundTooLarge('The answer is larger than 1 MiB.'));
      else chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
    // Ended by the signal midway: the body will not come.
    response.on('close', () => {
      if (!response.complete) reject(new OutboundFailure('The answer ended before its end.'));
    });
  });
}

export interface OutboundInit {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: string | URLSearchParams | null;
  signal?: AbortSignal | null;
}

export interface GuardedFetchOptions {
  /** The total time a call may take (default 10 s); tests lower it. */
  timeoutMs?: number;
}

/** A fetch (enough of one for openid-client's customFetch) that applies the checks above. */
export function guardedFetch(allowInsecure: boolean, { timeoutMs = TIMEOUT_MS }: GuardedFetchOptions = {}) {
  return async (input: string | URL, init: OutboundInit = {}): Promise<Response> => {
    const url = new URL(input);
    checkOutboundUrl(url, allowInsecure);
    const headers = Object.fromEntries(new Headers(init.headers ?? {}).entries());
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    // Both signals: the caller's alone would replace the cap (openid-client's is 30 s).
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const timedOut = () => new OutboundTimeout(`${url.host} did not answer within ${timeoutMs / 1000} seconds.`);
    const options: RequestOptions = { method: init.method ?? 'GET', headers, lookup: checkedLookup(allowInsecure), timeout: timeoutMs, signal };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const fail = (error: Error) => reject(deadline.aborted ? timedOut() : error);
      const request = send(url, options, (response) => {
        readBody(response).then((bytes) => {
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, item);
          }
          const status = response.statusCode ?? 502;
          resolve(new Response([101, 204, 205, 304].includes(status) ? null : new Uint8Array(bytes), { status, headers: answerHeaders }));
        }, fail);
      });
      request.on('timeout', () => request.destroy(timedOut()));
      request.on('error', fail);
      request.end(body);
    });
  };
}
