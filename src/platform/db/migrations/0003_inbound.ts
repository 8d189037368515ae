// Inbound revenue and wage-budget figures (src/inbound/tables.ts). The unique key is the upsert key
// of CONTRACT §3; the period index serves the read-back, which is always per company and stream.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('department_id', 'text', (c) => c.notNull())
    .addColumn('date', 'text')
    .addColumn('week', 'text')
    .addColumn('period_key', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('period_end', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('hours_centi', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbound_items_key')
    .on('inbound_items')
    .columns(['company_id', 'stream', 'period_key', 'department_id', 'kind', 'category'])
    .unique()
    .execute();
  await db.schema.createIndex('inbound_items_period').on('inbound_items').columns(['company_id', 'stream', 'period_start', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('inbound_items').execute();
}
