// Errors are values with stable codes. The company API answers RFC 9457 problem details; the OAuth
// endpoints answer RFC 6749 `{error, error_description}`. Every code, with its status and title, is
// in error-codes.ts (and docs/errors.md).
import { STATUS_CODES } from 'node:http';
import { ERROR_CODES, type ErrorCode, type OAuthErrorCode } from './error-codes.ts';

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemInit {
  code: ErrorCode;
  detail: string;
  /** Only where one code covers several statuses (`bad_request`: whichever 4xx the HTTP layer chose). */
  status?: number;
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
  readonly code: ErrorCode;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(init: ProblemInit) {
    super(init.detail);
    this.status = init.status ?? ERROR_CODES[init.code].status;
    this.code = init.code;
    this.title = ERROR_CODES[init.code].title;
    this.errors = init.errors;
    this.headers = init.headers ?? {};
  }
}

/** The codes of one status, so a helper named for a status takes only its own codes. */
export type CodeWithStatus<Status extends number> = { [C in ErrorCode]: (typeof ERROR_CODES)[C]['status'] extends Status ? C : never }[ErrorCode];
type BadRequestCode = CodeWithStatus<400>;

/** Where a query parameter's problem is reported: the same path the schema validation uses. */
export function queryParameter(name: string): string {
  return `/querystring/${name}`;
}

export function badRequest(code: BadRequestCode, detail: string, errors?: FieldError[]): ProblemError {
  return new ProblemError({ code, detail, ...(errors ? { errors } : {}) });
}

export function notFound(detail: string, code: CodeWithStatus<404> = 'not_found'): ProblemError {
  return new ProblemError({ code, detail });
}

export function conflict(code: CodeWithStatus<409>, detail: string): ProblemError {
  return new ProblemError({ code, detail });
}

/**
 * 429 while a penalty or a limit on attempts is in force, with its Retry-After: `what` names the
 * attempts ("sign-in attempts", "failed attempts"). The login pages and the console render it as an
 * HTML page.
 */
export function tooManyAttempts(retryAfter: number, what: string): ProblemError {
  return new ProblemError({ code: 'too_many_requests', detail: `Too many ${what}. Try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`, headers: { 'Retry-After': String(retryAfter) } });
}

/** An OAuth 2.0 failure (RFC 6749 §5.2, RFC 6750 §3, RFC 7009). */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: OAuthErrorCode;
  readonly headers: Record<string, string>;

  constructor(status: number, error: OAuthErrorCode, description: string, headers: Record<string, string> = {}) {
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
