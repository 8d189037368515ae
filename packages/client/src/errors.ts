// Every failure the client reports is one of these, so callers can branch on the class and read the
// service's own explanation instead of parsing messages.
import type { components } from './schema.ts';

/** RFC 9457 problem details, as the company API sends them (the service's own schema). */
export type Problem = components['schemas']['Problem'];

/** The company API refused a request (4xx/5xx problem+json). `code` is the stable error code. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Problem;
  readonly requestId: string | undefined;

  constructor(problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.name = 'ApiError';
    this.status = problem.status;
    this.code = problem.code;
    this.problem = problem;
    this.requestId = problem.requestId;
  }
}

/**
 * The identity service refused the refresh token (RFC 6749 `{error, error_description}`). An
 * `invalid_token` means the stored refresh token is expired or revoked: log in again (`wfs login`).
 */
export class TokenError extends Error {
  readonly status: number;
  readonly error: string;

  constructor(status: number, error: string, description: string) {
    super(`${status} ${error}: ${description}`);
    this.name = 'TokenError';
    this.status = status;
    this.error = error;
  }
}

/** The service could not be reached (after the retries the method allows). */
export class NetworkError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'NetworkError';
  }
}

/** Turns a failed response into ApiError, whatever its body (a proxy may answer with HTML). */
export async function problemFrom(response: Response): Promise<ApiError> {
  const text = await response.text();
  let body: Partial<Problem> = {};
  try {
    body = JSON.parse(text) as Partial<Problem>;
  } catch {
    // Not JSON: keep the status and a short excerpt of what came back.
  }
  return new ApiError({
    type: body.type ?? 'about:blank',
    title: body.title ?? response.statusText,
    status: response.status,
    detail: body.detail ?? (text.slice(0, 200) || response.statusText),
    code: body.code ?? `http_${response.status}`,
    ...(body.errors ? { errors: body.errors } : {}),
    requestId: body.requestId ?? response.headers.get('x-request-id') ?? '',
  });
}
