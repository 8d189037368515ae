// Who may use the operator API: whoever presents ADMIN_TOKEN as a Bearer token. Without ADMIN_TOKEN
// the API is off and answers 404, so an unconfigured install offers nothing to guess at.
import type { FastifyRequest } from 'fastify';
import { ProblemError, notFound } from '../platform/errors.ts';
import { safeEqual } from '../platform/ids.ts';

function unauthorized(code: 'missing_token' | 'invalid_token', detail: string): ProblemError {
  const challenge = code === 'missing_token' ? 'Bearer realm="operator"' : 'Bearer realm="operator", error="invalid_token"';
  return new ProblemError({ status: 401, code, detail, headers: { 'WWW-Authenticate': challenge } });
}

/** Throws unless the request carries the admin token; compares in constant time. */
export function requireOperator(adminToken: string | undefined, request: FastifyRequest): void {
  if (adminToken === undefined) throw notFound('The operator API is off: the server has no ADMIN_TOKEN.');
  const header = request.headers.authorization;
  if (!header) throw unauthorized('missing_token', 'Send the admin token as "Authorization: Bearer <ADMIN_TOKEN>".');
  const presented = /^Bearer +(\S+) *$/i.exec(header)?.[1] ?? '';
  if (!safeEqual(presented, adminToken)) throw unauthorized('invalid_token', 'The admin token is wrong.');
}
