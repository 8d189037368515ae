// Client authentication at the token and revocation endpoints, with the failure penalties of
// the contract's identity rate limits: attempts are counted per client and address before the secret is checked (so
// parallel guesses cannot all slip past the penalty), a success clears them. A secret that passed on
// this instance lately is no guess: it is only checked against a penalty in force (see `knownSecret`).
import type { FastifyRequest } from 'fastify';
import { OAuthError, oauth } from '../platform/errors.ts';
import type { Db } from '../platform/db/database.ts';
import { recordAudit } from './audit.ts';
import { sha256 } from '../platform/ids.ts';
import { findClient, presentedCredentials, verifiedClient, type OAuthClient } from './clients.ts';
import type { ClientCache } from './client-cache.ts';
import type { LimitedEndpoint, Throttle } from './throttle.ts';

export function tooManyRequests(retryAfter: number): OAuthError {
  return new OAuthError(429, 'slow_down', `Too many requests; retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`, { 'Retry-After': String(retryAfter) });
}

/** Counts the request against the client's per-minute budget at `endpoint`; throws 429 over it. */
export async function enforceRateLimit(throttle: Throttle, endpoint: LimitedEndpoint, clientId: string): Promise<void> {
  const verdict = await throttle.limit(endpoint, clientId);
  if (verdict) throw tooManyRequests(verdict.retryAfter);
}

/**
 * The client the request authenticates as, or the OAuth error (after counting and auditing a failure).
 * With `clients`, checked against the copies it keeps (for a grant whose issue re-checks the row,
 * see client-cache.ts); otherwise on a fresh read.
 */
export async function authenticateClient(
  db: Db,
  throttle: Throttle,
  request: FastifyRequest,
  body: { client_id?: string; client_secret?: string },
  now = Date.now(),
  clients?: ClientCache,
): Promise<OAuthClient> {
  const credentials = presentedCredentials(request.headers.authorization, body);
  if (!credentials) throw oauth.invalidClient('Client authentication is required: client_id and client_secret, or HTTP Basic.');
  const who = { clientId: credentials.clientId, address: request.ip };
  // Hashed once: the known-secret check, the comparison with the stored hashes and the memo share it.
  const digest = credentials.secret === undefined ? undefined : sha256(credentials.secret);
  const known = digest !== undefined && throttle.knownSecret(who.clientId, digest);
  const blocked = known ? await throttle.penalised(who.clientId, who.address) : await throttle.attempt(who.clientId, who.address);
  if (blocked) {
    await recordAudit(db, { event: 'client_authentication', outcome: 'throttled', ...who });
    throw tooManyRequests(blocked.retryAfter);
  }
  const client = clients ? await clients.verify(who.clientId, digest, now) : verifiedClient(await findClient(db, who.clientId), digest, now);
  if (digest !== undefined) throttle.secretChecked(who.clientId, digest, client !== undefined);
  if (!client) {
    // A known secret skipped its reservation: its failure is counted now.
    if (known) await throttle.attempt(who.clientId, who.address);
    await recordAudit(db, { event: 'client_authentication', outcome: 'failure', ...who, detail: 'bad_credentials_or_disabled' });
    throw oauth.invalidClient();
  }
  if (!known) await throttle.succeeded(who.clientId, who.address);
  return client;
}
