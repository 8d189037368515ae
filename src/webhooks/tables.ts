// Row types of the webhook tables (migrations 0010, 0018, 0019). Instants are epoch milliseconds, flags 0/1.
export interface WebhookEndpointsTable {
  id: string;
  company_id: string;
  url: string;
  /** JSON array of message types, or null for every type. */
  types: string | null;
  description: string | null;
  enabled: number;
  /** Why the service disabled it: `gone` (410), `retries_exhausted`; `manual` when the company did. */
  disabled_reason: string | null;
  /** The `whsec_` secret, sealed (src/platform/sealed-secrets.ts). */
  secret_sealed: string;
  /** The secret before the last rotation, still signing beside the new one until previous_secret_until. */
  previous_secret_sealed: string | null;
  previous_secret_until: number | null;
  /**
   * The secrets replaced before the previous one whose overlap has not ended (migration 0018): one
   * sealed JSON list of `{secret, until}`, newest first; null when there are none.
   */
  earlier_secrets_sealed: string | null;
  created_at: number;
  updated_at: number;
  /**
   * The change-log position at creation (migration 0019): the endpoint's changes, a replay's
   * included, are those after it. Null for endpoints created before the column (or by an older release
   * during a rolling deploy): their replay starts at created_at instead (messages.ts ownPeriod).
   */
  origin_seq: number | null;
  /** Change-log position: every change with a seq up to this one is delivered (or not for this endpoint). */
  delivered_seq: number;
  /** The message that failed last and holds back the others, with its failed attempts so far. */
  head_message_id: string | null;
  head_attempt: number;
  /** The head is not tried again before this instant. */
  next_attempt_at: number;
  /** The dispatcher instance delivering to this endpoint, until lease_until. */
  lease_owner: string | null;
  lease_until: number;
}

/** Messages queued by a request (test, replay, retry), delivered before the next change. */
export interface WebhookMessagesTable {
  id: string;
  endpoint_id: string;
  message_id: string;
  seq: number | null;
  type: string;
  /** The message body's `data` (JSON text). */
  payload: string;
  queued_at: number;
  /** Order among messages queued in the same millisecond (a replay queues many at once). */
  ordinal: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  message_id: string;
  seq: number | null;
  type: string;
  attempt: number;
  attempted_at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: number | null;
  /** Order among attempts recorded in the same millisecond (see messages.ts, nextOrdinal). */
  ordinal: number;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

declare module '../platform/db/schema.ts' {
  interface Database extends WebhookTables {}
}
