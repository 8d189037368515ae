// Webhook endpoints, their queued messages and their delivery log (src/webhooks/tables.ts).
// An endpoint row also carries its delivery state: how far into the change log it has got, the
// failing message at its head, and the lease of the instance that delivers to it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('types', 'text')
    .addColumn('description', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_seq', 'bigint', (c) => c.notNull())
    .addColumn('head_message_id', 'text')
    .addColumn('head_attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('webhook_endpoints_company').on('webhook_endpoints').columns(['company_id', 'id']).execute();
  await db.schema.createIndex('webhook_endpoints_due').on('webhook_endpoints').columns(['enabled', 'next_attempt_at']).execute();

  await db.schema
    .createTable('webhook_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('queued_at', 'bigint', (c) => c.notNull())
    .addColumn('ordinal', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_messages_queue').on('webhook_messages').columns(['endpoint_id', 'queued_at', 'ordinal', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('ordinal', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_log').on('webhook_deliveries').columns(['endpoint_id', 'attempted_at', 'ordinal']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_messages').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
