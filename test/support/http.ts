// JSON over real HTTP with the API User's bearer token, as the API suites call the service: status,
// headers and the parsed body (null when empty) of each answer.

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
  return asJson<T>(await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: payload }));
}

export async function getJson<T>(url: string, token: string, headers: Record<string, string> = {}): Promise<JsonResponse<T>> {
  return asJson<T>(await fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers } }));
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
