// The audience a grant was issued for, so a renewal through idToken (which names no audience) issues
// ID tokens for the same audience as the original exchange. Older rows mean the default audience.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('grants').addColumn('audience', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('grants').dropColumn('audience').execute();
}
