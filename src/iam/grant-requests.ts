// Grant requests (CONTRACT §6): a console user asks for a grant its client lacks, with a reason; the
// operator approves (which enables the grant) or declines. Enabling a grant stays the operator's
// decision: a console user can ask, never approve. Each step is audited; the approval names both
// the approver (the actor) and the requester (in its context).
import type { Db } from '../platform/db/database.ts';
import { ProblemError, badRequest, conflict, notFound, type FieldError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { Actor } from './audit.ts';
import { auditChange, reachOf, requireClient } from './organisation-scope.ts';
import { checkedGrant, setGrantEnabled, type OptionalGrant } from './provisioning.ts';
import { rejectIf } from '../platform/validation.ts';
import type { GrantRequestsTable } from './tables.ts';

export const GRANT_REQUEST_STATUSES = ['pending', 'approved', 'declined'] as const;
export type GrantRequestStatus = (typeof GRANT_REQUEST_STATUSES)[number];

export interface GrantRequest {
  id: string;
  clientId: string;
  grant: OptionalGrant;
  reason: string;
  status: GrantRequestStatus;
  /** ISO 8601 instants. */
  createdAt: string;
  decidedAt: string | null;
  /** Why the operator declined; null otherwise. */
  declineReason: string | null;
}

const MAX_REASON = 1000;

function presented(row: GrantRequestsTable): GrantRequest {
  return {
    id: row.id,
    clientId: row.client_id,
    grant: row.grant_type as OptionalGrant,
    reason: row.reason,
    status: row.status as GrantRequestStatus,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    decidedAt: row.decided_at === null ? null : new Date(Number(row.decided_at)).toISOString(),
    declineReason: row.decision_reason,
  };
}

function checkedReason(reason: string | undefined): string {
  const errors: FieldError[] = [];
  const text = (reason ?? '').trim();
  if (text === '') errors.push({ path: '/reason', message: 'is required' });
  else if (text.length > MAX_REASON) errors.push({ path: '/reason', message: `must be at most ${MAX_REASON} characters` });
  rejectIf(errors);
  return text;
}

export interface NewGrantRequest {
  clientId: string;
  grant: string;
  reason: string;
  /** A console user's organisation: another organisation's client is then "not found". */
  organisationId?: string;
}

/** Asks the operator for a grant. One pending request per client and grant; a grant already on is a 409. */
export async function requestGrant(db: Db, input: NewGrantRequest, actor: Actor, now = Date.now()): Promise<GrantRequest> {
  const grant = checkedGrant(input.grant);
  const reason = checkedReason(input.reason);
  const client = await requireClient(db, reachOf(actor, input.organisationId), input.clientId);
  if ((JSON.parse(client.grants) as string[]).includes(grant)) throw conflict('grant_already_enabled', `The ${grant} grant is already enabled for client ${client.id}.`);
  const row: GrantRequestsTable = {
    id: newId('grq'),
    organisation_id: client.organisation_id,
    client_id: client.id,
    grant_type: grant,
    reason,
    status: 'pending',
    requested_by: JSON.stringify(actor),
    created_at: now,
    decided_at: null,
    decided_by: null,
    decision_reason: null,
  };
  await db.transaction().execute(async (trx) => {
    const pending = await trx.selectFrom('grant_requests').select('id').where('client_id', '=', client.id).where('grant_type', '=', grant).where('status', '=', 'pending').executeTakeFirst();
    if (pending) throw conflict('grant_request_pending', `Request ${pending.id} for the ${grant} grant of client ${client.id} is still pending.`);
    await trx.insertInto('grant_requests').values(row).execute();
    await auditChange(trx, actor, `grant_requested:${grant}`, { organisationId: client.organisation_id, clientId: client.id }, { requestId: row.id, reason }, now);
  });
  return presented(row);
}

export interface GrantRequestFilter {
  status?: string;
  organisationId?: string;
  clientId?: string;
}

/** Requests newest first, narrowed by status, organisation and client. */
export async function listGrantRequests(db: Db, filter: GrantRequestFilter = {}): Promise<GrantRequest[]> {
  if (filter.status !== undefined && !(GRANT_REQUEST_STATUSES as readonly string[]).includes(filter.status)) {
    throw badRequest('validation_failed', `status must be one of ${GRANT_REQUEST_STATUSES.join(', ')}`, [{ path: '/status', message: `must be one of ${GRANT_REQUEST_STATUSES.join(', ')}` }]);
  }
  let query = db.selectFrom('grant_requests').selectAll();
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.organisationId !== undefined) query = query.where('organisation_id', '=', filter.organisationId);
  if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map(presented);
}

function requireOperator(actor: Actor): void {
  if (actor.kind !== 'operator') throw new ProblemError({ code: 'forbidden', detail: 'Only the operator decides grant requests.' });
}

/**
 * Marks a pending request decided, in `trx`, or throws: unknown is a 404, decided already a 409.
 * The update names the pending status, so two deciders racing cannot both win.
 */
async function decide(trx: Db, id: string, decision: { status: 'approved' | 'declined'; reason: string | null; actor: Actor; now: number }): Promise<GrantRequestsTable> {
  const request = await trx.selectFrom('grant_requests').selectAll().where('id', '=', id).executeTakeFirst();
  if (!request) throw notFound(`No grant request ${id}.`);
  const updated = await trx.updateTable('grant_requests')
    .set({ status: decision.status, decided_at: decision.now, decided_by: JSON.stringify(decision.actor), decision_reason: decision.reason })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw conflict('grant_request_decided', `Grant request ${id} was already ${request.status}.`);
  return { ...request, status: decision.status, decided_at: decision.now, decided_by: JSON.stringify(decision.actor), decision_reason: decision.reason };
}

/** Approves a pending request: the grant is enabled in the same transaction, audited with requester and approver. */
export async function approveGrantRequest(db: Db, id: string, actor: Actor, now = Date.now()): Promise<GrantRequest> {
  requireOperator(actor);
  return db.transaction().execute(async (trx) => {
    const request = await decide(trx, id, { status: 'approved', reason: null, actor, now });
    const context = { requestId: id, requestedBy: JSON.parse(request.requested_by) as Actor };
    await setGrantEnabled(trx, request.client_id, request.grant_type, true, actor, context);
    await auditChange(trx, actor, `grant_request_approved:${request.grant_type}`, { organisationId: request.organisation_id, clientId: request.client_id }, context, now);
    return presented(request);
  });
}

/** Declines a pending request with a reason the requester sees. */
export async function declineGrantRequest(db: Db, id: string, reason: string, actor: Actor, now = Date.now()): Promise<GrantRequest> {
  requireOperator(actor);
  const text = checkedReason(reason);
  return db.transaction().execute(async (trx) => {
    const request = await decide(trx, id, { status: 'declined', reason: text, actor, now });
    const context = { requestId: id, requestedBy: JSON.parse(request.requested_by) as Actor, reason: text };
    await auditChange(trx, actor, `grant_request_declined:${request.grant_type}`, { organisationId: request.organisation_id, clientId: request.client_id }, context, now);
    return presented(request);
  });
}
