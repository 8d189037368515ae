// Single sign-on (CONTRACT §8): each organisation's OpenID providers and the email domains they own
// (a domain belongs to one provider across all organisations: the primary key says so), whether the
// organisation enforces SSO, the links of API Users to a provider's (issuer, sub), the pending
// authorizations of flows under way (so a flow started on one instance completes on another), and
// on grants and codes the provider a login came through (its tokens carry `idp`; removing the
// provider revokes them).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_providers_organisation_issuer').unique().on('sso_providers').columns(['organisation_id', 'issuer']).execute();

  await db.schema
    .createTable('sso_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('sso_providers.id'))
    .execute();
  await db.schema.createIndex('sso_domains_provider').on('sso_domains').column('provider_id').execute();

  await db.schema
    .createTable('sso_settings')
    .addColumn('organisation_id', 'text', (c) => c.primaryKey().references('organisations.id'))
    .addColumn('enforce_sso', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sso_links')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('api_users.id'))
    .addColumn('provider_id', 'text', (c) => c.notNull().references('sso_providers.id'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_links_identity').unique().on('sso_links').columns(['issuer', 'subject', 'client_id']).execute();
  await db.schema.createIndex('sso_links_provider').on('sso_links').column('provider_id').execute();

  await db.schema
    .createTable('sso_pending')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('secrets_encrypted', 'text', (c) => c.notNull())
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('sso_pending_expiry').on('sso_pending').column('expires_at').execute();

  // One column per statement: SQLite adds a single column per ALTER TABLE.
  await db.schema.alterTable('grants').addColumn('sso_provider_id', 'text').execute();
  await db.schema.alterTable('grants').addColumn('idp', 'text').execute();
  await db.schema.alterTable('authorization_codes').addColumn('sso_provider_id', 'text').execute();
  await db.schema.alterTable('authorization_codes').addColumn('idp', 'text').execute();
  await db.schema.createIndex('grants_sso_provider').on('grants').column('sso_provider_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('grants_sso_provider').execute();
  for (const table of ['grants', 'authorization_codes']) {
    await db.schema.alterTable(table).dropColumn('idp').execute();
    await db.schema.alterTable(table).dropColumn('sso_provider_id').execute();
  }
  for (const table of ['sso_pending', 'sso_links', 'sso_settings', 'sso_domains', 'sso_providers']) await db.schema.dropTable(table).execute();
}
