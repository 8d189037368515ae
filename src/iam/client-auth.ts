// Client authentication at the token and revocation endpoints, with the failure penalties of
// the contract's identity rate limits: attempts are counted per client and address before the secret is checked (so
// parallel guesses cannot all slip past the penalty), a success clears them. A secret that passed on
// this instance lately is no guess: it is only checked against a penalty in force (see `knownSecret`).
import type { FastifyRequest } from 'fastify';
import { OAuthError, oauth } from '../platform/errors.ts';
import type { Db } from '../platform/db/database.ts';
import { recordAudit } from './audit.ts';
import { presentedCredentials, verifyClient, type OAuthClient } from './clients.ts';
import type { LimitedEndpoint, Throttle } from './throttle.ts';

export function tooManyRequests(retryAfter: number): OAuthError {
  return new OAuthError(429, 'slow_down', `Too many requests; retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`, { 'Retry-After': String(retryAfter) });
}

/** Counts the request against the client's per-minute budget at `endpoint`; throws 429 over it. */
export async function enforceRateLimit(throttle: Throttle, endpoint: LimitedEndpoint, clientId: string): Promise<void> {
  const verdict = await throttle.limit(endpoint, clientId);
  if (verdict) throw tooManyRequests(verdict.retryAfter);
}

export async function authenticateClient(
  db: Db,
  throttle: Throttle,
  request: FastifyRequest,
  body: { client_id?: string; client_secret?: string },
  now = Date.now(),
): Promise<OAuthClient> {
  const credentials = presentedCredentials(request.headers.authorization, body);
  if (!credentials) throw oauth.invalidClient('Client authentication is required: client_id and client_secret, or HTTP Basic.');
  const who = { clientId: credentials.clientId, address: request.ip };
  const secret = credentials.secret;
  const known = secret !== undefined && throttle.knownSecret(who.clientId, secret);
  const blocked = known ? await throttle.penalised(who.clientId, who.address) : await throttle.attempt(who.clientId, who.address);
  if (blocked) {
    await recordAudit(db, { event: 'client_authentication', outcome: 'throttled', ...who });
    throw tooManyRequests(blocked.retryAfter);
  }
  const client = await verifyClient(db, credentials, now);
  if (secret !== undefined) throttle.secretChecked(who.clientId, secret, client !== undefined);
  if (!client) {
    // A known secret skipped its reservation: its failure is counted now.
    if (known) await throttle.attempt(who.clientId, who.address);
    await recordAudit(db, { event: 'client_authentication', outcome: 'failure', ...who, detail: 'bad_credentials_or_disabled' });
    throw oauth.invalidClient();
  }
  if (!known) await throttle.succeeded(who.clientId, who.address);
  return client;
}
