// Renewal with a refresh token (contract: identity and access, "idToken"), shared by the idToken endpoint and
// grant_type=refresh_token at the token endpoint. Each call returns a new ID token; the refresh token
// itself is renewed only when less than half its lifetime remains. A renewed token supersedes its
// parent, which keeps working for REFRESH_GRACE_SECONDS (clients retry); used after that, it is
// treated as stolen and the whole grant is revoked (RFC 9700 §4.14). The chain never outlives
// REFRESH_CHAIN_MAX_SECONDS from the login.
import { recordAudit } from './audit.ts';
import { loadGrantContext, revokeGrantNow } from './grants.ts';
import { grantRefusal, issueIdToken, issueRefreshToken, signRecordedRefreshToken, tokenResponse, type LoadedGrant } from './issuance.ts';
import type { IssuerDeps } from './issuer.ts';
import type { TokenResponse } from './oauth-schemas.ts';
import { findRefreshToken, successorRecord, supersedeRefreshToken, type RefreshTokenRecord } from './refresh-tokens.ts';
import { InvalidTokenError, verifyRefreshToken, type RefreshClaims } from './tokens.ts';

/** The refresh token cannot be used; the message says why (safe to show the client). */
export class RenewalRefused extends Error {}

export async function verifyPresentedRefreshToken(deps: Pick<IssuerDeps, 'keys' | 'config' | 'clock'>, token: string): Promise<RefreshClaims> {
  try {
    return await verifyRefreshToken(deps.keys, token, deps.config, deps.clock.now());
  } catch (error) {
    if (error instanceof InvalidTokenError) throw new RenewalRefused(error.message);
    throw error;
  }
}

export interface RenewalOptions {
  /** The authenticated client, at the token endpoint: the token must be its own. */
  clientId?: string;
  /** An audience asked for at the token endpoint (already checked against the client's). */
  audience?: string;
  address: string;
}

/**
 * A new ID token for a verified refresh token, after these checks in order: the token is recorded
 * (for the grant it names), it was issued to the client presenting it, its grant may still issue
 * tokens, it has not expired; then a superseded token is either within its grace period or revokes
 * the grant, and a token past half its life is renewed.
 */
export async function renewTokens(deps: IssuerDeps, claims: RefreshClaims, options: RenewalOptions): Promise<TokenResponse> {
  const now = deps.clock.now();
  const { record, grant } = await recordedToken(deps, claims);
  issuedToThisClient(grant, options);
  grantStillIssuing(grant);
  notExpired(record, now);
  const refreshToken = await successor(deps, grant, record, now, options.address);
  const [{ token }] = await Promise.all([
    issueIdToken(deps.keys, deps.config, grant, now, options.audience ? { audience: options.audience } : {}),
    recordAudit(deps.db, { event: 'token_refreshed', outcome: 'success', ...who(grant, options.address), detail: refreshToken ? 'refresh_token_renewed' : null }, now),
  ]);
  return tokenResponse(token, deps.config, refreshToken);
}

function who(grant: LoadedGrant, address: string): { clientId: string; userId: string | null; address: string } {
  return { clientId: grant.clientId, userId: grant.userId, address };
}

/** The token's record and its grant, both as the claims name them. */
async function recordedToken(deps: IssuerDeps, claims: RefreshClaims): Promise<{ record: RefreshTokenRecord; grant: LoadedGrant }> {
  const record = await findRefreshToken(deps.db, claims.jti);
  const grant = record && record.grantId === claims.sid ? await loadGrantContext(deps.db, record.grantId) : undefined;
  if (!record || !grant) throw new RenewalRefused('The refresh token is unknown.');
  return { record, grant };
}

function issuedToThisClient(grant: LoadedGrant, options: RenewalOptions): void {
  if (options.clientId !== undefined && grant.clientId !== options.clientId) throw new RenewalRefused('The refresh token was issued to another client.');
}

function grantStillIssuing(grant: LoadedGrant): void {
  const refusal = grantRefusal(grant);
  if (refusal) throw new RenewalRefused(refusal);
}

function notExpired(record: RefreshTokenRecord, now: number): void {
  if (record.expiresAt <= now) throw new RenewalRefused('The refresh token has expired.');
}

/**
 * The refresh token to hand back with the ID token, if any. A superseded token used after the grace
 * period revokes the whole grant (treated as stolen); within it, a client that lost the previous
 * answer gets the same successor again. A live token past half its life is superseded by a new one.
 */
async function successor(deps: IssuerDeps, grant: LoadedGrant, record: RefreshTokenRecord, now: number, address: string): Promise<string | undefined> {
  if (record.supersededAt === null) return dueForRenewal(record, grant, now) ? supersede(deps, grant, record, now) : undefined;
  if (now - record.supersededAt <= deps.config.refreshGraceSeconds * 1000) return successorOf(deps, grant, record.jti);
  await revokeGrantNow(deps.db, deps.revocations, grant.grantId, 'refresh_token_reuse', now);
  await recordAudit(deps.db, { event: 'refresh_token_reuse', outcome: 'revoked', ...who(grant, address), detail: 'superseded_token_used_after_grace' }, now);
  throw new RenewalRefused('The refresh token was renewed earlier; using it again revoked every token of this login.');
}

/** Less than half the lifetime left, and a successor would actually live longer (the chain cap). */
function dueForRenewal(record: RefreshTokenRecord, grant: LoadedGrant, now: number): boolean {
  const lifetime = record.expiresAt - record.issuedAt;
  return record.expiresAt - now < lifetime / 2 && grant.chainExpiresAt > record.expiresAt;
}

async function supersede(deps: IssuerDeps, grant: LoadedGrant, record: RefreshTokenRecord, now: number): Promise<string | undefined> {
  // The conditional UPDATE picks one winner among concurrent renewals (on every instance); the
  // successor is recorded in the same transaction, so a loser always finds it.
  const issued = await deps.db.transaction().execute(async (trx) => {
    if (!(await supersedeRefreshToken(trx, record.jti, now))) return undefined;
    return issueRefreshToken(trx, deps.keys, deps.config, grant, record.jti, now);
  });
  return issued ?? successorOf(deps, grant, record.jti);
}

async function successorOf(deps: IssuerDeps, grant: LoadedGrant, parentJti: string): Promise<string | undefined> {
  const child = await successorRecord(deps.db, grant.grantId, parentJti);
  return child ? signRecordedRefreshToken(deps.keys, deps.config, grant, child) : undefined;
}
