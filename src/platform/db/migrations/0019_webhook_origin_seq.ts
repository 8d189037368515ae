// Where a webhook endpoint's own changes begin (src/webhooks/endpoints.ts): the change-log position
// when it was created. CONTRACT §7 gives an endpoint the changes committed after its creation, and a
// replay sends those again; `delivered_seq` moves on, so the start was lost and a replay sent older
// changes for the first time. Null for endpoints created before this column: their replays are not
// bounded by it (what they were before).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('origin_seq', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('origin_seq').execute();
}
