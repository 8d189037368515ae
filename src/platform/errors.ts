// Errors are values with stable codes. The company API answers RFC 9457 problem details; the OAuth
// endpoints answer RFC 6749 `{error, error_description}`. docs/errors.md lists every code.
import { STATUS_CODES } from 'node:http';

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemInit {
  status: number;
  code: string;
  detail: string;
  title?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function titleFor(status: number): string {
  return TITLES[status] ?? STATUS_CODES[status] ?? 'Error';
}

/** A company-API failure, rendered as application/problem+json. */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(init: ProblemInit) {
    super(init.detail);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title ?? titleFor(init.status);
    this.errors = init.errors;
    this.headers = init.headers ?? {};
  }
}

/** Where a query parameter's problem is reported: the same path the schema validation uses. */
export function queryParameter(name: string): string {
  return `/querystring/${name}`;
}

export function badRequest(code: string, detail: string, errors?: FieldError[]): ProblemError {
  return new ProblemError({ status: 400, code, detail, ...(errors ? { errors } : {}) });
}

export function notFound(detail: string, code = 'not_found'): ProblemError {
  return new ProblemError({ status: 404, code, detail });
}

export function conflict(code: string, detail: string): ProblemError {
  return new ProblemError({ status: 409, code, detail });
}

/** An OAuth 2.0 failure (RFC 6749 §5.2, RFC 6750 §3, RFC 7009). */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: string;
  readonly headers: Record<string, string>;

  constructor(status: number, error: string, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.status = status;
    this.error = error;
    this.headers = headers;
  }
}

export const oauth = {
  invalidRequest: (d: string) => new OAuthError(400, 'invalid_request', d),
  invalidClient: (d = 'Client authentication failed.') =>
    new OAuthError(401, 'invalid_client', d, { 'WWW-Authenticate': 'Basic realm="token"' }),
  invalidGrant: (d: string) => new OAuthError(400, 'invalid_grant', d),
  unauthorizedClient: (d: string) => new OAuthError(400, 'unauthorized_client', d),
  unsupportedGrantType: (d: string) => new OAuthError(400, 'unsupported_grant_type', d),
  invalidTarget: (d: string) => new OAuthError(400, 'invalid_target', d),
  invalidToken: (d: string) =>
    new OAuthError(401, 'invalid_token', d, { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${d.replace(/"/g, "'")}"` }),
  missingToken: () => new OAuthError(401, 'invalid_request', 'A bearer token is required.', { 'WWW-Authenticate': 'Bearer' }),
};
