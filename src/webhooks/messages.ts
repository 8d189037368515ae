// The messages an endpoint receives: a change of the log, or one queued by a request (a test message,
// a replay, a retry of an earlier delivery). Bodies follow Standard Webhooks: `{type, timestamp, data}`.
import { onPostgres, type Db } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';
import { ProblemError, badRequest, notFound } from '../platform/errors.ts';
import { pacer } from '../platform/cooperative.ts';
import type { Change, ChangeStream, Period } from './change-stream.ts';
import { TEST_MESSAGE_TYPE } from './schemas.ts';
import type { EndpointRow } from './endpoints.ts';

/** One message ready to send: `body` is signed and sent byte for byte. */
export interface Message {
  id: string;
  seq: number | null;
  type: string;
  body: string;
  /** The queued row it came from (deleted once delivered); undefined for a change read from the log. */
  queuedId?: string;
  /** When the change occurred (ms), for the delivery-latency figure; undefined for a test message. */
  occurredAtMs?: number;
}

export function changeMessage(change: Change): Message {
  return { id: change.id, seq: change.seq, type: change.type, body: JSON.stringify({ type: change.type, timestamp: change.occurredAt, data: change }), occurredAtMs: Date.parse(change.occurredAt) };
}

function testBody(endpointId: string, timestamp: string): string {
  return JSON.stringify({ type: TEST_MESSAGE_TYPE, timestamp, data: { endpointId, message: 'A test message from the workforce scheduling service: this endpoint receives and verifies messages.' } });
}

interface QueuedInput {
  messageId: string;
  seq: number | null;
  type: string;
  body: string;
}

/**
 * Orders rows made in one millisecond (ids made together do not sort by creation): two test requests
 * in a row are sent in the order they were made, two attempts logged in the same millisecond are
 * listed in the order they were made. Across instances, rows of the same millisecond have no order
 * between them, as simultaneous requests have none.
 */
let ordinals = 0;

export function nextOrdinal(): number {
  return ++ordinals;
}

async function queue(db: Db, endpointId: string, now: number, messages: QueuedInput[]): Promise<void> {
  const rows = messages.map((message) => ({ id: newId('whq', now), endpoint_id: endpointId, message_id: message.messageId, seq: message.seq, type: message.type, payload: message.body, queued_at: now, ordinal: nextOrdinal() }));
  for (let start = 0; start < rows.length; start += 500) await db.insertInto('webhook_messages').values(rows.slice(start, start + 500)).execute();
}

export async function queueTestMessage(db: Db, endpointId: string, now: number, timestamp: string): Promise<string> {
  const messageId = newId('msg', now);
  await queue(db, endpointId, now, [{ messageId, seq: null, type: TEST_MESSAGE_TYPE, body: testBody(endpointId, timestamp) }]);
  return messageId;
}

/**
 * The most changes one replay queues (docs/webhooks.md): a larger period is refused as a whole
 * rather than cut, since a cut could fall inside one millisecond (an import records thousands of
 * changes at one instant) where no later period could pick up. The delta endpoint reads any number.
 */
export const REPLAY_LIMIT = 10_000;
/** Changes read and queued per step of a replay; the event loop gets a turn between steps. */
const REPLAY_PAGE = 500;

function replayTooLarge(): ProblemError {
  return badRequest('replay_too_large', `The period holds more than ${REPLAY_LIMIT} changes for this endpoint; replay shorter periods, or read the changes with GET /api/v1/company/changes.`, [{ path: '/from', message: `the period holds more than ${REPLAY_LIMIT} changes` }]);
}

/** A disabled endpoint delivers nothing: its queued changes wait for it to be enabled again, so the detail says that. */
function replayInProgress(endpoint: EndpointRow): ProblemError {
  const detail = endpoint.enabled
    ? 'Changes replayed or retried earlier are still queued for this endpoint; replay again once they are delivered.'
    : 'Changes replayed or retried earlier are still queued for this endpoint, which is disabled and delivers nothing: enable it again to deliver them, then replay again.';
  return new ProblemError({ code: 'replay_in_progress', detail });
}

function queuedInput(change: Change): QueuedInput {
  const message = changeMessage(change);
  return { messageId: message.id, seq: message.seq, type: message.type, body: message.body };
}

/**
 * The endpoint's own changes of [fromMs, toMs): those after its origin_seq. An endpoint without one
 * (created before migration 0019, or by an older release during a rolling deploy) has its creation
 * instant as the period's start instead: approximate, since a change's recorded instant and the
 * endpoint's come from the clocks of the instances that wrote them.
 */
function ownPeriod(endpoint: EndpointRow, fromMs: number, toMs: number): Period {
  const types = endpoint.types === null ? undefined : (JSON.parse(endpoint.types) as string[]);
  if (endpoint.origin_seq !== null) return { fromMs, toMs, types, originSeq: endpoint.origin_seq };
  return { fromMs: Math.max(fromMs, endpoint.created_at), toMs, types, originSeq: 0 };
}

/**
 * Queues the first page of a replay unless changes are still queued for the endpoint (a replay or a
 * retry not yet delivered): refused then, so repeated replays cannot pile copies up. Locking the
 * endpoint's row first makes two replays of one endpoint take turns (on PostgreSQL; SQLite's
 * transactions begin IMMEDIATE, one writer at a time), so the second sees the first's page.
 */
async function queueFirstPage(db: Db, endpoint: EndpointRow, now: number, page: Change[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (onPostgres(trx)) await trx.selectFrom('webhook_endpoints').select('id').where('id', '=', endpoint.id).forUpdate().execute();
    const waiting = await trx.selectFrom('webhook_messages').select('id').where('endpoint_id', '=', endpoint.id).where('seq', 'is not', null).limit(1).executeTakeFirst();
    if (waiting) throw replayInProgress(endpoint);
    await queue(trx, endpoint.id, now, page.map(queuedInput));
  });
}

/**
 * Queues the endpoint's own changes (committed after its creation) of [fromMs, toMs) its types select, with their original ids, in
 * pages of REPLAY_PAGE with a turn of the event loop between them (a whole period at once held it
 * for seconds); answers how many. Refuses a period of more than REPLAY_LIMIT changes, and a replay
 * while changes are still queued for the endpoint.
 */
export async function queueReplay(db: Db, stream: ChangeStream, endpoint: EndpointRow, fromMs: number, toMs: number, now: number): Promise<number> {
  const period = ownPeriod(endpoint, fromMs, toMs);
  if (await stream.holdsMoreThan(db, endpoint.company_id, period, REPLAY_LIMIT)) throw replayTooLarge();
  const pace = pacer();
  let page = await stream.between(db, endpoint.company_id, period, 0, REPLAY_PAGE);
  await queueFirstPage(db, endpoint, now, page);
  let queued = page.length;
  // Changes committed into the period meanwhile may join it: the limit still holds.
  while (page.length === REPLAY_PAGE && queued < REPLAY_LIMIT) {
    await pace();
    const afterSeq = page[page.length - 1]?.seq ?? 0;
    page = await stream.between(db, endpoint.company_id, period, afterSeq, Math.min(REPLAY_PAGE, REPLAY_LIMIT - queued));
    await queue(db, endpoint.id, now, page.map(queuedInput));
    queued += page.length;
  }
  return queued;
}

/** The oldest queued message of an endpoint, or the one with `messageId` when given. */
export async function firstQueued(db: Db, endpointId: string, messageId?: string): Promise<Message | undefined> {
  let query = db.selectFrom('webhook_messages').selectAll().where('endpoint_id', '=', endpointId);
  if (messageId !== undefined) query = query.where('message_id', '=', messageId);
  const row = await query.orderBy('queued_at').orderBy('ordinal').orderBy('id').limit(1).executeTakeFirst();
  return row && { id: row.message_id, seq: row.seq, type: row.type, body: row.payload, queuedId: row.id };
}

/** Whether a message is still waiting: queued, or the endpoint's failing head. */
async function stillPending(db: Db, endpoint: EndpointRow, messageId: string): Promise<boolean> {
  if (endpoint.head_message_id === messageId && endpoint.head_attempt > 0) return true;
  const queued = await db.selectFrom('webhook_messages').select('id').where('endpoint_id', '=', endpoint.id).where('message_id', '=', messageId).executeTakeFirst();
  return queued !== undefined;
}

/**
 * Sends a delivery's message again: a message still waiting is tried at once (a retry does not add a
 * second copy); one delivered already, or given up, is queued again with its original id.
 */
export async function retryDelivery(db: Db, stream: ChangeStream, endpoint: EndpointRow, deliveryId: string, now: number, timestamp: string): Promise<string> {
  const delivery = await db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).where('id', '=', deliveryId).executeTakeFirst();
  if (!delivery) throw notFound('No delivery with this id for this endpoint.', 'delivery_not_found');
  if (await stillPending(db, endpoint, delivery.message_id)) {
    await db.updateTable('webhook_endpoints').set({ next_attempt_at: now }).where('id', '=', endpoint.id).where('head_message_id', '=', delivery.message_id).execute();
    return delivery.message_id;
  }
  if (delivery.type === TEST_MESSAGE_TYPE) {
    await queue(db, endpoint.id, now, [{ messageId: delivery.message_id, seq: null, type: TEST_MESSAGE_TYPE, body: testBody(endpoint.id, timestamp) }]);
    return delivery.message_id;
  }
  const [change] = delivery.seq === null ? [] : (await stream.after(db, endpoint.company_id, delivery.seq - 1, 1, [delivery.type])).changes;
  if (!change || change.id !== delivery.message_id) {
    throw new ProblemError({ code: 'message_expired', detail: 'The change of this delivery is older than the change log keeps (CHANGES_RETENTION_SECONDS); read the collections again.' });
  }
  await queue(db, endpoint.id, now, [queuedInput(change)]);
  return change.id;
}
