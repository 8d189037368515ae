// The token and revocation endpoints read form fields (RFC 6749 §4.1.3) or, as a convenience, JSON.
// Any other body would reach the schema as a string and be refused as "must be object": this says
// what to send instead, with the 415 both endpoints document.
import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../platform/errors.ts';
import { OAUTH_BODY_HINT } from '../platform/http.ts';

const ACCEPTED = /^application\/(x-www-form-urlencoded|json)\s*(;|$)/i;

export async function requireOAuthBody(request: FastifyRequest): Promise<void> {
  if (!ACCEPTED.test(request.headers['content-type'] ?? '')) {
    throw new OAuthError(415, 'invalid_request', OAUTH_BODY_HINT);
  }
}
