// A webhook endpoint's secrets replaced before the previous one, still signing (src/webhooks/endpoints.ts):
// with only `previous_secret_*`, a second rotation within 24 hours ended the first one's overlap at
// once. One sealed JSON list of `{secret, until}`, newest first. The previous secret keeps its own
// columns, so a release without this column (a rolling deploy, a rollback) still signs with it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('earlier_secrets_sealed', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('earlier_secrets_sealed').execute();
}
