// Pending authorizations: a flow started at the provider, remembered in the database (so any instance
// can finish it) under the hash of its `state`, with the client's own authorization request, the
// nonce and PKCE verifier (sealed), and the hash of a cookie that binds it to the browser that
// started it. Short-lived and single use: the callback claims the row with a conditional UPDATE.
import type { Db } from '../platform/db/database.ts';
import { sha256 } from '../platform/ids.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';

/** Long enough to sign in at the provider (with MFA), short enough that a stale link is useless. */
export const PENDING_TTL_MS = 10 * 60 * 1000;

export interface NewPending {
  state: string;
  providerId: string;
  clientId: string;
  request: Record<string, string>;
  nonce: string;
  codeVerifier: string;
  browserBinding: string;
}

export interface ClaimedPending {
  providerId: string;
  clientId: string;
  request: Record<string, string>;
  nonce: string;
  codeVerifier: string;
}

export type PendingClaim = { ok: true; pending: ClaimedPending } | { ok: false; reason: 'unknown_state' | 'replayed_callback' | 'expired_state' | 'other_browser'; clientId?: string; request?: Record<string, string> };

export async function rememberPending(db: Db, box: SecretBox, pending: NewPending, now = Date.now()): Promise<void> {
  const stateHash = sha256(pending.state);
  await db.deleteFrom('sso_pending').where('expires_at', '<', now - PENDING_TTL_MS).execute();
  await db.insertInto('sso_pending').values({
    state_hash: stateHash,
    provider_id: pending.providerId,
    client_id: pending.clientId,
    request: JSON.stringify(pending.request),
    secrets_encrypted: box.seal(JSON.stringify({ nonce: pending.nonce, codeVerifier: pending.codeVerifier }), `sso_pending:${stateHash}`),
    browser_hash: sha256(pending.browserBinding),
    created_at: now,
    expires_at: now + PENDING_TTL_MS,
    used_at: null,
  }).execute();
}

/** Claims the pending authorization of `state` once; says why when it cannot. */
export async function claimPending(db: Db, box: SecretBox, state: string, browserBinding: string | undefined, now = Date.now()): Promise<PendingClaim> {
  const stateHash = sha256(state);
  const row = await db.selectFrom('sso_pending').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
  if (!row) return { ok: false, reason: 'unknown_state' };
  const request = JSON.parse(row.request) as Record<string, string>;
  const known = { clientId: row.client_id, request };
  if (row.used_at !== null) return { ok: false, reason: 'replayed_callback', ...known };
  if (row.expires_at <= now) return { ok: false, reason: 'expired_state', ...known };
  // Used up by any attempt, so a flow cannot be retried from another browser either.
  const claimed = await db.updateTable('sso_pending').set({ used_at: now }).where('state_hash', '=', stateHash).where('used_at', 'is', null).executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return { ok: false, reason: 'replayed_callback', ...known };
  if (browserBinding === undefined || sha256(browserBinding) !== row.browser_hash) return { ok: false, reason: 'other_browser', ...known };
  const secrets = JSON.parse(box.open(row.secrets_encrypted, `sso_pending:${stateHash}`)) as { nonce: string; codeVerifier: string };
  return { ok: true, pending: { providerId: row.provider_id, clientId: row.client_id, request, nonce: secrets.nonce, codeVerifier: secrets.codeVerifier } };
}
