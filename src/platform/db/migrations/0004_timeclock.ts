// Timeclock events and the per-person stream state (src/timeclock/tables.ts). The two unique
// indexes are the database's guarantees: an eventId is stored once per organisation, and a
// person's sequence numbers never repeat (that index also serves one person's read-back). Every
// index costs each append a page write, so there is no other.
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
    .execute();
  await db.schema.createIndex('timeclock_events_event_id').on('timeclock_events').columns(['organisation_id', 'event_id']).unique().execute();
  await db.schema.createIndex('timeclock_events_sequence').on('timeclock_events').columns(['employee_id', 'sequence']).unique().execute();
  await db.schema.createIndex('timeclock_events_occurred').on('timeclock_events').columns(['organisation_id', 'occurred_at', 'id']).execute();

  await db.schema
    .createTable('timeclock_states')
    .addColumn('employee_id', 'text', (c) => c.primaryKey())
    .addColumn('organisation_id', 'text', (c) => c.notNull())
    .addColumn('last_sequence', 'integer', (c) => c.notNull())
    .addColumn('last_occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('timeclock_states').execute();
  await db.schema.dropTable('timeclock_events').execute();
}
