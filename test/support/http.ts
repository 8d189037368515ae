// JSON over HTTP with the API User's bearer token, as the API suites call the service: status,
// headers and the parsed body (null when empty) of each answer. And how a test waits for a token to
// be refused after a revocation. A URL of a server answering in process is answered in process.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchAny } from './in-process.ts';

export interface JsonResponse<T> {
  status: number;
  body: T;
  headers: Headers;
  /** The body as sent, for failure messages. */
  text: string;
}

async function asJson<T>(response: Response): Promise<JsonResponse<T>> {
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers, text };
}

/** POSTs `body` (serialised unless already a string) as application/json with a bearer token. */
export async function postJson<T>(url: string, token: string, body: unknown): Promise<JsonResponse<T>> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return asJson<T>(await fetchAny(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: payload }));
}

export async function getJson<T>(url: string, token: string, headers: Record<string, string> = {}): Promise<JsonResponse<T>> {
  return asJson<T>(await fetchAny(url, { headers: { authorization: `Bearer ${token}`, ...headers } }));
}

/** The problem+json body of an error answer. */
export interface ProblemBody {
  status: number;
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The status of a secured call (the company configuration) with `token`. */
export async function configurationStatus(baseUrl: string, token: string): Promise<number> {
  const response = await fetchAny(`${baseUrl}/api/v1/company/configuration`, { headers: { authorization: `Bearer ${token}` } });
  await response.body?.cancel();
  return response.status;
}

/**
 * Polls the secured API with `token` until it is no longer accepted, and asserts it is refused with
 * 401 within `limitMs` (a revocation must reach every instance within 5 s). Answers the time taken.
 */
export async function assertRefusedWithin(baseUrl: string, token: string, limitMs: number): Promise<number> {
  const started = Date.now();
  let status = await configurationStatus(baseUrl, token);
  while (status === 200 && Date.now() - started < limitMs) {
    await sleep(100);
    status = await configurationStatus(baseUrl, token);
  }
  const afterMs = Date.now() - started;
  assert.equal(status, 401, `still accepted after ${afterMs} ms`);
  assert.ok(afterMs < limitMs, `refused only after ${afterMs} ms`);
  return afterMs;
}
