// The delivery log of an endpoint: one row per attempt, listed newest first.
import { sql, type Selectable } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import type { SortKey } from '../platform/collection.ts';
import type { Listing } from '../platform/paged-collection.ts';
import { formatInstant } from '../platform/local-time.ts';
import type { WebhookDeliveriesTable } from './tables.ts';

type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** The endpoint's delivery log as a paged listing, newest attempt first. */
export function deliveryListing(db: Db, endpointId: string, timezone: string): Listing<DeliveryRow, ReturnType<typeof presentDelivery>> {
  return { rows: (count, before) => listDeliveries(db, endpointId, count, before), position: (row) => [row.attempted_at, row.ordinal], present: (row) => presentDelivery(row, timezone) };
}

function listDeliveries(db: Db, endpointId: string, count: number, before: SortKey | undefined): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (before !== undefined) query = query.where(sql<boolean>`(attempted_at, ordinal) < (${before[0]}, ${before[1]})`);
  return query.orderBy('attempted_at', 'desc').orderBy('ordinal', 'desc').limit(count).execute();
}

export function presentDelivery(row: DeliveryRow, timezone: string) {
  return {
    id: row.id,
    messageId: row.message_id,
    seq: row.seq,
    type: row.type,
    attempt: row.attempt,
    attemptedAt: formatInstant(row.attempted_at, timezone),
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms,
    nextAttemptAt: row.next_attempt_at === null ? null : formatInstant(row.next_attempt_at, timezone),
  };
}
