// Migration 0012 replaced PostgreSQL's per-row foreign key `inbound_items.company_id → companies`
// with checks once per statement: the rule must still hold on both databases (SQLite keeps its
// foreign key), after migrating from 0011 (its `down` leaves 0011's schema) and up again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { down, up } from '../../../../src/platform/db/migrations/0012_batch_write_path.ts';
import { useMigratedDatabase } from '../../../support/database.ts';
import { createCompany, createOrganisation } from '../../../../src/iam/provisioning.ts';
import type { Db } from '../../../../src/platform/db/database.ts';
import { newId } from '../../../../src/platform/ids.ts';

const database = useMigratedDatabase();

function figure(companyId: string, category: string) {
  const now = Date.now();
  return { id: newId('fig'), company_id: companyId, stream: 'revenue' as const, department_id: 'dep_x', date: '2026-11-26', week: null, period_key: '2026-11-26', period_start: '2026-11-26', period_end: '2026-11-26', kind: 'realised', category, amount_minor: 100, hours_centi: null, created_at: now, updated_at: now };
}

async function newCompany(db: Db): Promise<string> {
  const { organisationId } = await createOrganisation(db, { name: 'Org' });
  return (await createCompany(db, { organisationId, name: 'Figures', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' })).companyId;
}

async function assertCompanyRuleHolds(db: Db): Promise<void> {
  const companyId = await newCompany(db);
  const other = await newCompany(db);
  // Refused wholly: one row of an unknown company among good ones stores none of them.
  await assert.rejects(db.insertInto('inbound_items').values([figure(companyId, 'a'), figure('cmp_missing', 'b')]).execute(), /foreign key|company cmp_missing/i);
  assert.equal((await db.selectFrom('inbound_items').select('id').where('company_id', '=', companyId).execute()).length, 0);
  const stored = figure(companyId, 'c');
  await db.insertInto('inbound_items').values(stored).execute();
  await assert.rejects(db.updateTable('inbound_items').set({ company_id: 'cmp_missing' }).where('id', '=', stored.id).execute(), /foreign key|company cmp_missing/i);
  await assert.rejects(db.deleteFrom('companies').where('id', '=', companyId).execute(), /foreign key|inbound figures/i);
  // Moving to a company that exists, and removing a company without figures, stay allowed.
  await db.updateTable('inbound_items').set({ company_id: other }).where('id', '=', stored.id).execute();
  await db.deleteFrom('companies').where('id', '=', companyId).execute();
}

test('an inbound figure needs its company, and a company keeps its figures', async () => {
  await assertCompanyRuleHolds(database.db);
});

test('the rule holds after going back to 0011 and migrating up again', async () => {
  const db = database.db as unknown as Kysely<unknown>;
  await down(db);
  await assertCompanyRuleHolds(database.db);
  await up(db);
  await assertCompanyRuleHolds(database.db);
});
