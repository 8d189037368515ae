// A company's data version: bumped by every import that changes something, so a response built from
// that data can be cached and revalidated by (company, version) with one primary-key read, on every
// instance. Additive: older releases ignore the column.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('companies').addColumn('data_version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('companies').dropColumn('data_version').execute();
}
