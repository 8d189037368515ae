// Timeclock events (src/timeclock/tables.ts). The two unique indexes are the database's guarantees:
// an eventId is stored once per organisation, and a person's sequence numbers never repeat (that
// index also finds a person's latest event and serves one person's read-back). Every index costs
// each append a page write, so there is only one more, for the organisation's read-back.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('timeclock_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('badge_id', 'text')
    .addColumn('device_id', 'text')
    .addColumn('location', 'text')
    .addColumn('anomaly', 'text')
    .addColumn('state_after', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('timeclock_events_event_id').on('timeclock_events').columns(['organisation_id', 'event_id']).unique().execute();
  await db.schema.createIndex('timeclock_events_sequence').on('timeclock_events').columns(['employee_id', 'sequence']).unique().execute();
  await db.schema.createIndex('timeclock_events_occurred').on('timeclock_events').columns(['organisation_id', 'occurred_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('timeclock_events').execute();
}
