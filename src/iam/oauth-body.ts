// The token and revocation endpoints read form fields (RFC 6749 §4.1.3) or, as a convenience, JSON.
// Any other body would reach the schema as a string and be refused as "must be object": this says
// what to send instead, with the 415 both endpoints document. A request with no body at all has sent
// no type to be wrong: it lacks every parameter, which RFC 6749 §5.2 answers 400 invalid_request.
import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../platform/errors.ts';
import { OAUTH_BODY_HINT } from '../platform/http.ts';

const ACCEPTED = /^application\/(x-www-form-urlencoded|json)\s*(;|$)/i;

/** No Content-Length (or 0) and no Transfer-Encoding: the request carries no body (RFC 9112 §6.3). */
function carriesNoBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length === undefined || Number(length) === 0) && request.headers['transfer-encoding'] === undefined;
}

export async function requireOAuthBody(request: FastifyRequest): Promise<void> {
  if (ACCEPTED.test(request.headers['content-type'] ?? '')) return;
  // Validated as an empty form: the first missing parameter is named.
  if (carriesNoBody(request)) request.body = {};
  else throw new OAuthError(415, 'invalid_request', OAUTH_BODY_HINT);
}
