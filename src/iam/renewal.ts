// Renewal with a refresh token (contract: identity and access, "idToken"), shared by the idToken endpoint and
// grant_type=refresh_token at the token endpoint. Each call returns a new ID token; the refresh token
// itself is renewed only when less than half its lifetime remains. A renewed token supersedes its
// parent, which keeps working for REFRESH_GRACE_SECONDS (clients retry); used after that, it is
// treated as stolen and the whole grant is revoked (RFC 9700 §4.14). The chain never outlives
// REFRESH_CHAIN_MAX_SECONDS from the login.
import type { AppContext } from '../app/context.ts';
import { recordAudit } from './audit.ts';
import { revokeGrantNow } from './grants.ts';
import {
  grantRefusal,
  issueIdToken,
  issueRefreshToken,
  loadGrantContext,
  signRecordedRefreshToken,
  tokenResponse,
  type LoadedGrant,
} from './issuance.ts';
import type { TokenResponse } from './oauth-schemas.ts';
import { InvalidTokenError, verifyRefreshToken, type RefreshClaims } from './tokens.ts';
import type { RefreshTokensTable } from './tables.ts';

/** The refresh token cannot be used; the message says why (safe to show the client). */
export class RenewalRefused extends Error {}

export async function verifyPresentedRefreshToken(ctx: AppContext, token: string): Promise<RefreshClaims> {
  try {
    return await verifyRefreshToken(ctx.keys, token, ctx.config, ctx.clock.now());
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

export async function renewTokens(ctx: AppContext, claims: RefreshClaims, options: RenewalOptions): Promise<TokenResponse> {
  const now = ctx.clock.now();
  const record = await ctx.db.selectFrom('refresh_tokens').selectAll().where('jti', '=', claims.jti).executeTakeFirst();
  const grant = record && record.grant_id === claims.sid ? await loadGrantContext(ctx.db, record.grant_id) : undefined;
  if (!record || !grant) throw new RenewalRefused('The refresh token is unknown.');
  if (options.clientId !== undefined && grant.clientId !== options.clientId) throw new RenewalRefused('The refresh token was issued to another client.');
  const refusal = grantRefusal(grant);
  if (refusal) throw new RenewalRefused(refusal);
  if (record.expires_at <= now) throw new RenewalRefused('The refresh token has expired.');

  const who = { clientId: grant.clientId, userId: grant.userId, address: options.address };
  let refreshToken: string | undefined;
  if (record.superseded_at !== null) {
    if (now - record.superseded_at > ctx.config.refreshGraceSeconds * 1000) {
      await revokeGrantNow(ctx.db, ctx.revocations, grant.grantId, 'refresh_token_reuse', now);
      await recordAudit(ctx.db, { event: 'refresh_token_reuse', outcome: 'revoked', ...who, detail: 'superseded_token_used_after_grace' }, now);
      throw new RenewalRefused('The refresh token was renewed earlier; using it again revoked every token of this login.');
    }
    // Within the grace period: a client that lost the previous answer gets the same successor again.
    refreshToken = await successorOf(ctx, grant, record.jti);
  } else if (dueForRenewal(record, grant, now)) {
    refreshToken = await supersede(ctx, grant, record, now);
  }
  const [{ token }] = await Promise.all([
    issueIdToken(ctx.keys, ctx.config, grant, now, options.audience ? { audience: options.audience } : {}),
    recordAudit(ctx.db, { event: 'token_refreshed', outcome: 'success', ...who, detail: refreshToken ? 'refresh_token_renewed' : null }, now),
  ]);
  return tokenResponse(token, ctx.config, refreshToken);
}

/** Less than half the lifetime left, and a successor would actually live longer (the chain cap). */
function dueForRenewal(record: RefreshTokensTable, grant: LoadedGrant, now: number): boolean {
  const lifetime = record.expires_at - record.issued_at;
  return record.expires_at - now < lifetime / 2 && grant.chainExpiresAt > record.expires_at;
}

async function supersede(ctx: AppContext, grant: LoadedGrant, record: RefreshTokensTable, now: number): Promise<string | undefined> {
  // The conditional UPDATE picks one winner among concurrent renewals (on every instance); the
  // successor is recorded in the same transaction, so a loser always finds it.
  const issued = await ctx.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('refresh_tokens')
      .set({ superseded_at: now })
      .where('jti', '=', record.jti)
      .where('superseded_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    return issueRefreshToken(trx, ctx.keys, ctx.config, grant, record.jti, now);
  });
  return issued ?? successorOf(ctx, grant, record.jti);
}

async function successorOf(ctx: AppContext, grant: LoadedGrant, parentJti: string): Promise<string | undefined> {
  const child = await ctx.db
    .selectFrom('refresh_tokens')
    .select(['jti', 'issued_at', 'expires_at'])
    .where('parent_jti', '=', parentJti)
    .where('grant_id', '=', grant.grantId)
    .orderBy('issued_at', 'desc')
    .executeTakeFirst();
  if (!child) return undefined;
  return signRecordedRefreshToken(ctx.keys, ctx.config, grant, { jti: child.jti, issuedAt: child.issued_at, expiresAt: child.expires_at });
}
