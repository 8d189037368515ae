// Authorization codes (contract: identity and access): 256 random bits, stored only as a SHA-256 hash, bound to the
// client, redirect URI, user, nonce and PKCE challenge, valid AUTH_CODE_TTL seconds and usable once.
// "Once" is enforced by a conditional UPDATE whose affected-row count decides the winner, so it holds
// across instances; a second use revokes the grant the first use created (RFC 6749 §4.1.2).
import { onPostgres, type Db } from '../platform/db/database.ts';
import { newSecret, safeEqual, sha256 } from '../platform/ids.ts';
import { createGrant, loadGrantContext, newGrantId, revokeGrants, type Federation } from './grants.ts';
import type { LoadedGrant } from './issuance.ts';

export interface NewCode {
  clientId: string;
  userId: string;
  redirectUri: string;
  nonce: string | null;
  codeChallenge: string | null;
  authTime: number;
  /** What the login was checked against; the code is stored only while it still holds. */
  proof: LoginProof;
}

/**
 * A secret login: the user's secret hash as read for the check. An SSO login: the provider it came
 * through (its issuer becomes the tokens' `idp`).
 */
export type LoginProof = { secretHash: string } | { federation: Federation };

/**
 * Stores a code for a login checked a moment ago (a secret check is slow on purpose): only if the
 * user is still enabled and still holds what the login was checked against (the same secret hash,
 * or the SSO provider still there and the client's `sso` grant still on), else undefined and nothing
 * stored. One conditional insert, so a reset, disabling, provider removal or withdrawn grant that
 * finished during the check leaves no code behind; on PostgreSQL it holds a share lock on those rows
 * until it commits, so one still under way either waits for the code and then voids it (or, for the
 * grant, lets it stand: withdrawing a grant revokes nothing), or commits first and the insert finds
 * no row.
 */
export async function issueAuthorizationCode(db: Db, code: NewCode, ttlSeconds: number, now = Date.now()): Promise<string | undefined> {
  const value = newSecret(32);
  const { proof } = code;
  const federation = 'federation' in proof ? proof.federation : null;
  const result = await db
    .insertInto('authorization_codes')
    .columns(['code_hash', 'client_id', 'user_id', 'redirect_uri', 'nonce', 'code_challenge', 'auth_time', 'created_at', 'expires_at', 'used_at', 'grant_id', 'sso_provider_id', 'idp'])
    .expression((eb) => {
      let checked = eb
        .selectFrom('api_users as u')
        .select([
          eb.val(sha256(value)).as('code_hash'),
          eb.val(code.clientId).as('client_id'),
          'u.id as user_id',
          eb.val(code.redirectUri).as('redirect_uri'),
          eb.val(code.nonce).as('nonce'),
          eb.val(code.codeChallenge).as('code_challenge'),
          eb.val(code.authTime).as('auth_time'),
          eb.val(now).as('created_at'),
          eb.val(now + ttlSeconds * 1000).as('expires_at'),
          eb.val(null).as('used_at'),
          eb.val(null).as('grant_id'),
          eb.val(federation?.providerId ?? null).as('sso_provider_id'),
          eb.val(federation?.issuer ?? null).as('idp'),
        ])
        .where('u.id', '=', code.userId)
        .where('u.disabled', '=', 0);
      checked = 'secretHash' in proof
        ? checked.where('u.secret_hash', '=', proof.secretHash)
        : checked
          .innerJoin('sso_providers as p', (join) => join.on('p.id', '=', proof.federation.providerId))
          // The client's `sso` grant (a JSON list), which the operator may have withdrawn meanwhile.
          .innerJoin('api_clients as c', (join) => join.on('c.id', '=', code.clientId).on('c.grants', 'like', '%"sso"%'));
      return onPostgres(db) ? checked.forShare() : checked;
    })
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1 ? value : undefined;
}

/** What an integrator needs to see about a code without exchanging it (the demo callback page). */
export async function describeCode(db: Db, code: string): Promise<{ clientId: string; redirectUri: string; usesPkce: boolean } | undefined> {
  const row = await db
    .selectFrom('authorization_codes')
    .select(['client_id', 'redirect_uri', 'code_challenge'])
    .where('code_hash', '=', sha256(code))
    .executeTakeFirst();
  return row ? { clientId: row.client_id, redirectUri: row.redirect_uri, usesPkce: row.code_challenge !== null } : undefined;
}

export interface CodeExchange {
  code: string;
  clientId: string;
  redirectUri: string;
  codeVerifier: string | undefined;
  audience: string;
  chainMaxSeconds: number;
}

export type Redemption =
  | { status: 'redeemed'; grantId: string; grant: LoadedGrant | undefined; nonce: string | null }
  | { status: 'replayed'; clientId: string; userId: string; revokedGrantIds: string[] }
  | { status: 'refused'; reason: string };

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 7636 §4.6, with no downgrade: a verifier for a code issued without a challenge is refused. */
function pkceProblem(challenge: string | null, verifier: string | undefined): string | undefined {
  if (challenge === null) return verifier === undefined ? undefined : 'code_verifier was sent for a code issued without code_challenge.';
  if (verifier === undefined) return 'code_verifier is required: the authorization request sent a code_challenge.';
  if (!VERIFIER.test(verifier) || !safeEqual(sha256(verifier), challenge)) return 'code_verifier does not match the code_challenge.';
  return undefined;
}

function federationOf(row: { sso_provider_id: string | null; idp: string | null }): Federation | null {
  return row.sso_provider_id !== null && row.idp !== null ? { providerId: row.sso_provider_id, issuer: row.idp } : null;
}

/** An API User's login with their own secret: what turning SSO enforcement on revokes. */
function isSecretLogin(row: { user_id: string | null; sso_provider_id: string | null }): boolean {
  return row.user_id !== null && row.sso_provider_id === null;
}

/**
 * PostgreSQL: a share lock on the client's organisation row, which turning SSO enforcement on locks
 * first (providers.ts, setSsoEnforced). Taken before the grant is made and its settings read, so the
 * enforcement either sees the grant this exchange commits (and revokes it) or commits first, and
 * this exchange reads enforcement on and is refused. Only secret logins take it: SSO logins and
 * client_credentials, which enforcement leaves alone, never wait on it.
 */
async function awaitEnforcementChange(trx: Db, clientId: string): Promise<void> {
  if (!onPostgres(trx)) return;
  await trx.selectFrom('organisations').select('id')
    .where('id', '=', (eb) => eb.selectFrom('api_clients').innerJoin('companies', 'companies.id', 'api_clients.company_id').select('companies.organisation_id').where('api_clients.id', '=', clientId))
    .forShare().execute();
}

export async function redeemAuthorizationCode(db: Db, exchange: CodeExchange, now = Date.now()): Promise<Redemption> {
  const row = await db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', sha256(exchange.code)).executeTakeFirst();
  if (!row) return { status: 'refused', reason: 'The authorization code is invalid.' };
  if (row.used_at !== null) {
    // A code voided by the operator (client or user disabled, secret rotated) is marked used without
    // ever having made a grant: exchanging it is no replay and raises no alarm. Only its own client
    // learns why.
    if (row.grant_id === null) {
      return { status: 'refused', reason: row.client_id === exchange.clientId ? 'The authorization code was withdrawn before it was exchanged: its client or user was disabled, or the client secret rotated.' : 'The authorization code was issued to another client.' };
    }
    const revokedGrantIds = await revokeGrants(db, { grantId: row.grant_id }, 'code_replayed', now);
    return { status: 'replayed', clientId: row.client_id, userId: row.user_id, revokedGrantIds };
  }
  if (row.client_id !== exchange.clientId) return { status: 'refused', reason: 'The authorization code was issued to another client.' };
  if (row.redirect_uri !== exchange.redirectUri) return { status: 'refused', reason: 'redirect_uri differs from the one of the authorization request.' };
  if (row.expires_at <= now) return { status: 'refused', reason: 'The authorization code has expired.' };
  const pkce = pkceProblem(row.code_challenge, exchange.codeVerifier);
  if (pkce) return { status: 'refused', reason: pkce };

  // The grant id is written with the claim, in one transaction with the grant itself, so a replay
  // that loses the race always finds (and revokes) the grant the winner created. The winner reads the
  // grant back in that transaction, as it stood at the claim: read after the commit, a racing replay
  // may have revoked it already, and the code's one use would be refused too. The use succeeds; the
  // replay's revocation reaches the tokens it issues.
  const grantId = newGrantId();
  const claimed = await db.transaction().execute(async (trx) => {
    if (isSecretLogin(row)) await awaitEnforcementChange(trx, row.client_id);
    const result = await trx
      .updateTable('authorization_codes')
      .set({ used_at: now, grant_id: grantId })
      .where('code_hash', '=', row.code_hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await createGrant(trx, { id: grantId, clientId: row.client_id, userId: row.user_id, kind: 'authorization_code', authTime: row.auth_time, chainMaxSeconds: exchange.chainMaxSeconds, audience: exchange.audience, federation: federationOf(row) }, now);
    return { grant: await loadGrantContext(trx, grantId) };
  });
  if (!claimed) return redeemAuthorizationCode(db, exchange, now);
  return { status: 'redeemed', grantId, grant: claimed.grant, nonce: row.nonce };
}
