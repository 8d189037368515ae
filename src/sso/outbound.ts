// Every request the service makes to an SSO provider (discovery, JWKS, token endpoint) goes through
// this fetch: https only, and the host passes the outbound check every tenant-chosen destination
// passes (src/platform/outbound-destination.ts: every address a name resolves to public unicast, the
// connection pinned to an address checked, so a second resolution cannot swap in another). SSO_ALLOW_INSECURE=1
// (development, tests) allows http and such addresses. Answers are capped in size (1 MiB) and in total
// time (10 s from the request to the answer's last byte, resolving the name included): the caller's
// signal (openid-client passes its own 30 s one) may end a call sooner, never later.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DestinationRefused, hostOf, pinnedLookup, resolvePublic, type HostResolver, type ResolvedAddress } from '../platform/outbound-destination.ts';

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

/** Refuses a URL the service must not call: not https, or a host that is not public (literal or by name). */
export function checkOutboundUrl(url: URL, allowInsecure: boolean): void {
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) throw new OutboundRefused(`${url.origin} is not https.`);
}

/** The addresses to connect to, checked; a refusal as an OutboundRefused (its log detail as the message: for the operator). */
async function checkedAddresses(url: URL, allowInsecure: boolean, resolver: HostResolver | undefined, signal: AbortSignal) {
  try {
    return await resolvePublic(hostOf(url), { allowInsecure, signal, ...(resolver ? { resolver } : {}) });
  } catch (error) {
    if (error instanceof DestinationRefused) throw new OutboundRefused(`${url.host} is not a public address (${error.logDetail}).`, { cause: error });
    throw error;
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
  /** Tests resolve names with their own DNS server. */
  resolver?: HostResolver;
}

/** A fetch (enough of one for openid-client's customFetch) that applies the checks above. */
export function guardedFetch(allowInsecure: boolean, { timeoutMs = TIMEOUT_MS, resolver }: GuardedFetchOptions = {}) {
  return async (input: string | URL, init: OutboundInit = {}): Promise<Response> => {
    const url = new URL(input);
    checkOutboundUrl(url, allowInsecure);
    // Both signals: the caller's alone would replace the cap (openid-client's is 30 s). Started before
    // the name is resolved: the cap is the whole call's.
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const timedOut = () => new OutboundTimeout(`${url.host} did not answer within ${timeoutMs / 1000} seconds.`);
    let addresses: ResolvedAddress[];
    try {
      addresses = await checkedAddresses(url, allowInsecure, resolver, signal);
    } catch (error) {
      throw deadline.aborted ? timedOut() : error;
    }
    const headers = Object.fromEntries(new Headers(init.headers ?? {}).entries());
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    const options: RequestOptions = { method: init.method ?? 'GET', headers, lookup: pinnedLookup(addresses), timeout: timeoutMs, signal };
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
