// Running an API Client (CONTRACT §5, §6): its redirect URIs, its secret (rotated at once by the
// operator, or with an overlap by the operator or a console user), disabling and re-enabling. Each
// change is audited with its actor, and a console user reaches only its organisation's clients.
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import { badRequest } from '../platform/errors.ts';
import { generateClientSecret } from './secrets.ts';
import { revokeGrants, voidPendingCodes } from './grants.ts';
import { OPERATOR, type Actor } from './audit.ts';
import { EVERY_ORGANISATION, auditChange, reachOf, requireClient, type Reach } from './organisation-scope.ts';
import { checkedRedirectUris } from './provisioning.ts';

export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

/** A new secret ends every grant issued under the old one (a leaked secret must stop working), and any overlap. */
export async function rotateClientSecret(db: Db, clientId: string, actor: Actor = OPERATOR): Promise<{ clientId: string; clientSecret: string; revokedGrants: string[] }> {
  const client = await requireClient(db, EVERY_ORGANISATION, clientId);
  const { secret, hash } = generateClientSecret();
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('api_clients').set({ secret_hash: hash, previous_secret_hash: null, previous_secret_expires_at: null, updated_at: Date.now() }).where('id', '=', clientId).execute();
    await voidPendingCodes(trx, { clientId });
    const revokedGrants = await revokeGrants(trx, { clientId }, 'client_secret_rotated');
    await auditChange(trx, actor, 'client_secret_rotated', { organisationId: client.organisation_id, clientId });
    return { clientId, clientSecret: secret, revokedGrants };
  });
}

export interface OverlapRotation {
  clientId: string;
  /** How long the current secret keeps working beside the new one: 1 s to 7 days, default 24 hours. */
  overlapSeconds?: number;
  /** A console user's organisation: another organisation's client is then "not found". */
  organisationId?: string;
}

export interface RotatedWithOverlap {
  clientId: string;
  clientSecret: string;
  /** ISO 8601 instant until which the previous secret is still accepted. */
  previousSecretExpiresAt: string;
}

function checkedOverlap(seconds: number | undefined): number {
  const overlap = seconds ?? DEFAULT_OVERLAP_SECONDS;
  if (!Number.isInteger(overlap) || overlap < 1 || overlap > MAX_OVERLAP_SECONDS) {
    throw badRequest('validation_failed', `overlapSeconds must be a whole number from 1 to ${MAX_OVERLAP_SECONDS} (7 days)`, [{ path: '/overlapSeconds', message: `must be a whole number from 1 to ${MAX_OVERLAP_SECONDS}` }]);
  }
  return overlap;
}

/**
 * A planned rotation: the new secret works at once and the current one keeps working until
 * `previousSecretExpiresAt`, so the integrator can roll it out; no grant is revoked. A client has at
 * most two live secrets: rotating again during an overlap retires the oldest at once.
 */
export async function rotateClientSecretWithOverlap(db: Db, input: OverlapRotation, actor: Actor, now = Date.now()): Promise<RotatedWithOverlap> {
  const overlap = checkedOverlap(input.overlapSeconds);
  const client = await requireClient(db, reachOf(actor, input.organisationId), input.clientId);
  const { secret, hash } = generateClientSecret();
  const expiresAt = now + overlap * 1000;
  const previousSecretExpiresAt = new Date(expiresAt).toISOString();
  await db.transaction().execute(async (trx) => {
    // Both assignments read the row as it was: the current secret becomes the previous one.
    await trx.updateTable('api_clients')
      .set({ previous_secret_hash: sql.ref('secret_hash'), previous_secret_expires_at: expiresAt, secret_hash: hash, updated_at: now })
      .where('id', '=', client.id)
      .execute();
    await auditChange(trx, actor, 'client_secret_rotated_with_overlap', { organisationId: client.organisation_id, clientId: client.id }, { previousSecretExpiresAt }, now);
  });
  return { clientId: client.id, clientSecret: secret, previousSecretExpiresAt };
}

/** Ends an overlap early: the previous secret stops working now. Ending no overlap changes nothing. */
export async function endSecretOverlap(db: Db, clientId: string, actor: Actor, organisationId?: string, now = Date.now()): Promise<{ clientId: string; previousSecretExpiresAt: null }> {
  const client = await requireClient(db, reachOf(actor, organisationId), clientId);
  const live = client.previous_secret_hash !== null && client.previous_secret_expires_at !== null && Number(client.previous_secret_expires_at) > now;
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('api_clients').set({ previous_secret_hash: null, previous_secret_expires_at: null, updated_at: now }).where('id', '=', client.id).execute();
    if (live) await auditChange(trx, actor, 'client_secret_overlap_ended', { organisationId: client.organisation_id, clientId: client.id }, undefined, now);
  });
  return { clientId: client.id, previousSecretExpiresAt: null };
}

/** Replaces the client's redirect URIs (exact match; https, or http on a loopback host for a console user). */
export async function updateRedirectUris(db: Db, reach: Reach, clientId: string, uris: string[], actor: Actor): Promise<{ clientId: string; redirectUris: string[] }> {
  const redirectUris = checkedRedirectUris(uris, actor);
  const client = await requireClient(db, reach, clientId);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('api_clients').set({ redirect_uris: JSON.stringify(redirectUris), updated_at: Date.now() }).where('id', '=', client.id).execute();
    await auditChange(trx, actor, 'redirect_uris_updated', { organisationId: client.organisation_id, clientId: client.id }, { redirectUris });
  });
  return { clientId: client.id, redirectUris };
}

/** Disabling revokes the client's grants and pending codes; enabling brings none of them back. */
export async function setClientDisabled(db: Db, reach: Reach, clientId: string, disabled: boolean, actor: Actor): Promise<{ clientId: string; disabled: boolean; revokedGrants: string[] }> {
  const client = await requireClient(db, reach, clientId);
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('api_clients').set({ disabled: disabled ? 1 : 0, updated_at: Date.now() }).where('id', '=', client.id).execute();
    await auditChange(trx, actor, disabled ? 'client_disabled' : 'client_enabled', { organisationId: client.organisation_id, clientId: client.id });
    if (!disabled) return { clientId: client.id, disabled, revokedGrants: [] };
    await voidPendingCodes(trx, { clientId: client.id });
    return { clientId: client.id, disabled, revokedGrants: await revokeGrants(trx, { clientId: client.id }, 'client_disabled') };
  });
}
