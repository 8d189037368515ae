// What the customer console needs of the identity core (CONTRACT §6): a second, expiring client
// secret during a rotation with overlap; grant requests waiting for the operator; and an audit log an
// organisation can read — every row carries its organisation and who acted, with indexes that keep a
// filtered, newest-first page fast at millions of rows. Additive: older releases ignore the columns.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_clients').addColumn('previous_secret_hash', 'text').execute();
  await db.schema.alterTable('api_clients').addColumn('previous_secret_expires_at', 'bigint').execute();

  await db.schema
    .createTable('grant_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('api_clients.id'))
    .addColumn('grant_type', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('decided_at', 'bigint')
    .addColumn('decided_by', 'text')
    .addColumn('decision_reason', 'text')
    .execute();
  await db.schema.createIndex('grant_requests_status').on('grant_requests').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('grant_requests_client').on('grant_requests').columns(['client_id', 'created_at']).execute();
  await db.schema.createIndex('grant_requests_organisation').on('grant_requests').columns(['organisation_id', 'created_at']).execute();

  for (const column of ['organisation_id', 'actor_kind', 'actor_id', 'actor_email', 'context']) {
    await db.schema.alterTable('audit_log').addColumn(column, 'text').execute();
  }
  // Rows written before this release learn their organisation from their client (or user).
  await sql`update audit_log set organisation_id = (
      select companies.organisation_id from api_clients join companies on companies.id = api_clients.company_id
      where api_clients.id = coalesce(audit_log.client_id, (select api_users.client_id from api_users where api_users.id = audit_log.user_id)))
    where organisation_id is null`.execute(db);
  // A page is "this organisation's rows, newest first" narrowed by at most a few equalities and a
  // time range: each index leads with the equality the filter names and ends in the sort key.
  await db.schema.createIndex('audit_log_organisation_at').on('audit_log').columns(['organisation_id', 'at', 'id']).execute();
  await db.schema.createIndex('audit_log_organisation_event_at').on('audit_log').columns(['organisation_id', 'event', 'at', 'id']).execute();
  await db.schema.createIndex('audit_log_client_at').on('audit_log').columns(['client_id', 'at', 'id']).execute();
  await db.schema.createIndex('audit_log_user_at').on('audit_log').columns(['user_id', 'at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['audit_log_user_at', 'audit_log_client_at', 'audit_log_organisation_event_at', 'audit_log_organisation_at']) {
    await db.schema.dropIndex(index).execute();
  }
  for (const column of ['context', 'actor_email', 'actor_id', 'actor_kind', 'organisation_id']) {
    await db.schema.alterTable('audit_log').dropColumn(column).execute();
  }
  await db.schema.dropTable('grant_requests').execute();
  await db.schema.alterTable('api_clients').dropColumn('previous_secret_expires_at').execute();
  await db.schema.alterTable('api_clients').dropColumn('previous_secret_hash').execute();
}
