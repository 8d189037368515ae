// Endpoints guarded by one configured secret (the operator API's ADMIN_TOKEN, /metrics' METRICS_TOKEN):
// off (404) while the secret is unset, so an unconfigured install offers nothing to guess at; 401 for
// a missing or wrong token; the comparison takes the same time whatever the presented value.
import type { FastifyRequest } from 'fastify';
import { ProblemError, notFound } from './errors.ts';
import { safeEqual } from './ids.ts';

export interface StaticBearer {
  /** The configured secret; undefined turns the endpoint off. */
  secret: string | undefined;
  /** The `WWW-Authenticate` realm, e.g. "operator". */
  realm: string;
  /** The variable that holds the secret, named in the error details. */
  variable: string;
  /** What is off, for the 404's detail: "The operator API". */
  what: string;
}

function unauthorized(realm: string, code: 'missing_token' | 'invalid_token', detail: string): ProblemError {
  const challenge = code === 'missing_token' ? `Bearer realm="${realm}"` : `Bearer realm="${realm}", error="invalid_token"`;
  return new ProblemError({ code, detail, headers: { 'WWW-Authenticate': challenge } });
}

/** Throws unless the request carries the secret as a Bearer token. */
export function requireStaticBearer({ secret, realm, variable, what }: StaticBearer, request: FastifyRequest): void {
  if (secret === undefined) throw notFound(`${what} is off: the server has no ${variable}.`);
  const header = request.headers.authorization;
  if (!header) throw unauthorized(realm, 'missing_token', `Send the token as "Authorization: Bearer <${variable}>".`);
  const presented = /^Bearer +(\S+) *$/i.exec(header)?.[1] ?? '';
  if (!safeEqual(presented, secret)) throw unauthorized(realm, 'invalid_token', `The ${variable} token is wrong.`);
}
