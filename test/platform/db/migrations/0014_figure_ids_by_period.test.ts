// Migration 0014 drops PostgreSQL's primary key on inbound_items.id and makes the period index, which
// ends in id, unique instead; down puts the primary key back and the index as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { down, up } from '../../../../src/platform/db/migrations/0014_figure_ids_by_period.ts';
import { testDialect, useMigratedDatabase } from '../../../support/database.ts';
import { createCompany, createOrganisation } from '../../../../src/iam/provisioning.ts';

const database = useMigratedDatabase();
const onPostgres = { skip: testDialect !== 'postgres' && 'SQLite keeps its primary key (dropping it rebuilds the table)' };

/** inbound_items' indexes: name → whether unique. */
async function indexes(db: Kysely<unknown>): Promise<Record<string, boolean>> {
  const { rows } = await sql<{ name: string; unique: boolean }>`
    select c.relname as name, i.indisunique as unique from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = 'inbound_items'::regclass`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.name, row.unique]));
}

test('the period index is unique and there is no primary key; down and up again switch them', onPostgres, async () => {
  const db = database.db as unknown as Kysely<unknown>;
  const migrated = { inbound_items_key: true, inbound_items_period: true };
  assert.deepEqual(await indexes(db), migrated);
  await db.transaction().execute((trx) => down(trx));
  assert.deepEqual(await indexes(db), { inbound_items_key: true, inbound_items_period: false, inbound_items_pkey: true });
  await db.transaction().execute((trx) => up(trx));
  assert.deepEqual(await indexes(db), migrated);
});

test('a figure id is unique within its company, stream and period start', onPostgres, async () => {
  const { organisationId } = await createOrganisation(database.db, { name: 'Org' });
  const { companyId } = await createCompany(database.db, { organisationId, name: 'Figures', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' });
  const figure = (category: string) => ({ id: 'fig_same', company_id: companyId, stream: 'revenue' as const, department_id: 'dep_a', date: '2026-11-26', week: null, period_key: '2026-11-26', period_start: '2026-11-26', period_end: '2026-11-26', kind: 'realised', category, amount_minor: 1, hours_centi: null, created_at: 1, updated_at: 1 });
  await database.db.insertInto('inbound_items').values(figure('a')).execute();
  await assert.rejects(database.db.insertInto('inbound_items').values(figure('b')).execute(), /inbound_items_period/);
});
