// Client authentication at the token and revocation endpoints, with the failure penalties of
// the contract's identity rate limits: attempts are counted per client and address before the secret is checked (so
// parallel guesses cannot all slip past the penalty), a success clears them. A secret that passed on
// this instance lately is no guess: it is only checked against a penalty in force (see `knownSecret`).
// Concurrent requests with one secret not yet known share one reservation and one check (`shareCheck`).
import type { FastifyRequest } from 'fastify';
import { OAuthError, oauth } from '../platform/errors.ts';
import type { Db } from '../platform/db/database.ts';
import { recordAudit } from './audit.ts';
import { sha256 } from '../platform/ids.ts';
import { findClient, presentedCredentials, verifiedClient, type OAuthClient } from './clients.ts';
import type { ClientCache } from './client-cache.ts';
import type { LimitedEndpoint, SecretCheck, Throttle } from './throttle.ts';

export function tooManyRequests(retryAfter: number): OAuthError {
  return new OAuthError(429, 'invalid_request', `Too many requests; retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`, { 'Retry-After': String(retryAfter) });
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
  const verify = async (): Promise<OAuthClient | undefined> =>
    clients ? clients.verify(who.clientId, digest, now) : verifiedClient(await findClient(db, who.clientId), digest, now);
  const check = await checkSecret(throttle, who, digest, verify, clients ? 'kept' : 'fresh');
  if ('blocked' in check) {
    await recordAudit(db, { event: 'client_authentication', outcome: 'throttled', ...who });
    throw tooManyRequests(check.blocked.retryAfter);
  }
  if (!check.client) {
    await recordAudit(db, { event: 'client_authentication', outcome: 'failure', ...who, detail: 'bad_credentials_or_disabled' });
    throw oauth.invalidClient();
  }
  return check.client;
}

interface Who {
  clientId: string;
  address: string;
}

/**
 * A secret that passed on this instance lately is checked against a penalty in force only (see
 * `knownSecret`); any other is checked with an attempt reserved first, and concurrent requests with
 * the same secret share that reservation and its check (see `shareCheck`).
 */
async function checkSecret(
  throttle: Throttle,
  who: Who,
  digest: string | undefined,
  verify: () => Promise<OAuthClient | undefined>,
  source: 'kept' | 'fresh',
): Promise<SecretCheck> {
  if (digest === undefined) return reservedCheck(throttle, who, digest, verify);
  if (throttle.knownSecret(who.clientId, digest)) {
    const blocked = await throttle.penalised(who.clientId, who.address);
    if (blocked) return { blocked };
    const client = await verify();
    throttle.secretChecked(who.clientId, digest, client !== undefined);
    // Its failure is counted now (it reserved nothing) and answered as the failure it is: 401, audited `failure`.
    if (!client) await throttle.attempt(who.clientId, who.address);
    return { client };
  }
  const { joined, outcome } = throttle.shareCheck(source, who.clientId, who.address, digest, () => reservedCheck(throttle, who, digest, verify));
  if (!joined) return outcome;
  let check: SecretCheck;
  try {
    check = await outcome;
  } catch (error) {
    // As with a reservation of its own, the attempt stays counted when the check broke down.
    await throttle.attempt(who.clientId, who.address);
    throw error;
  }
  return countedAfterCheck(throttle, who, check);
}

/** Reserves an attempt, then checks the secret; a success clears the reservation. */
async function reservedCheck(throttle: Throttle, who: Who, digest: string | undefined, verify: () => Promise<OAuthClient | undefined>): Promise<SecretCheck> {
  const blocked = await throttle.attempt(who.clientId, who.address);
  if (blocked) return { blocked };
  const client = await verify();
  if (digest !== undefined) throttle.secretChecked(who.clientId, digest, client !== undefined);
  if (client) await throttle.succeeded(who.clientId, who.address);
  return { client };
}

/**
 * A request that joined another's failed check reserved nothing of its own: it counts its failure
 * now, refused as its reservation would have been past the penalty.
 */
async function countedAfterCheck(throttle: Throttle, who: Who, check: SecretCheck): Promise<SecretCheck> {
  if ('blocked' in check || check.client) return check;
  const blocked = await throttle.attempt(who.clientId, who.address);
  return blocked ? { blocked } : check;
}
