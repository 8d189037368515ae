// One place decides when a request is sent again: a 429 always (the service did not process it), a
// lost connection or a 502/503/504 only for requests that are safe to repeat. Waits follow
// Retry-After when the service gives one, else an exponential backoff with jitter.
import { NetworkError } from './errors.ts';

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  /** First backoff in milliseconds; it doubles with each attempt (with jitter). */
  backoffMs: number;
  /** The longest Retry-After the client waits for; a longer one is handed to the caller as the 429. */
  maxRetryAfterSeconds: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, backoffMs: 250, maxRetryAfterSeconds: 120 };

export type FetchFunction = (request: Request) => Promise<Response>;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const TRANSIENT = new Set([502, 503, 504]);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function backoffMs(policy: Pick<RetryPolicy, 'backoffMs'>, attempt: number, capMs = 30_000): number {
  const base = Math.min(capMs, policy.backoffMs * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface SendOptions {
  /** Treat the request as safe to repeat even if its method is not (e.g. idToken: the old refresh token stays valid for a grace period). */
  idempotent?: boolean;
}

export async function sendWithRetries(fetchImpl: FetchFunction, request: Request, policy: RetryPolicy, options: SendOptions = {}): Promise<Response> {
  const repeatable = options.idempotent ?? IDEMPOTENT.has(request.method);
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetchImpl(request.clone());
    } catch (error) {
      if (!repeatable || attempt >= policy.retries) {
        throw new NetworkError(`${request.method} ${request.url} failed: ${(error as Error).message}`, { cause: error });
      }
      await sleep(backoffMs(policy, attempt));
      continue;
    }
    const retry = response.status === 429 || (repeatable && TRANSIENT.has(response.status));
    if (!retry || attempt >= policy.retries) return response;
    const wait = retryAfterMs(response) ?? backoffMs(policy, attempt);
    if (wait > policy.maxRetryAfterSeconds * 1000) return response;
    await response.body?.cancel();
    await sleep(wait);
  }
}
