// Who may use the operator API: whoever presents ADMIN_TOKEN as a Bearer token. Without ADMIN_TOKEN
// the API is off and answers 404, so an unconfigured install offers nothing to guess at.
import type { FastifyRequest } from 'fastify';
import { requireStaticBearer } from '../platform/static-bearer.ts';

/** Throws unless the request carries the admin token; compares in constant time. */
export function requireOperator(adminToken: string | undefined, request: FastifyRequest): void {
  requireStaticBearer({ secret: adminToken, realm: 'operator', variable: 'ADMIN_TOKEN', what: 'The operator API' }, request);
}
