// The direct read used on every company request sees committed data only: never a transaction in
// flight on the main connection (an import that might still roll back).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDatabase, sqliteHandleOf } from '../../src/platform/db/database.ts';
import { createCompany, createOrganisation } from '../../src/iam/provisioning.ts';
import { findCompany } from '../../src/tenancy/companies.ts';
import { migratedDatabase, testDialect } from '../support/database.ts';

test('findCompany on SQLite sees a data version only once its transaction commits', { skip: testDialect !== 'sqlite' && 'SQLite only' }, async () => {
  const database = await migratedDatabase();
  const db = createDatabase(database.url);
  try {
    assert.ok(sqliteHandleOf(db), 'a SQLite handle');
    const { organisationId } = await createOrganisation(db, { name: 'Org' });
    const { companyId } = await createCompany(db, { organisationId, name: 'Co', timezone: 'Europe/Amsterdam', currency: 'EUR' });
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('companies').set({ data_version: 7 }).where('id', '=', companyId).execute();
      assert.equal((await findCompany(db, companyId)).dataVersion, 0, 'not yet committed');
    });
    assert.equal((await findCompany(db, companyId)).dataVersion, 7, 'committed');
    await assert.rejects(db.transaction().execute(async (trx) => {
      await trx.updateTable('companies').set({ data_version: 8 }).where('id', '=', companyId).execute();
      throw new Error('rolled back');
    }));
    assert.equal((await findCompany(db, companyId)).dataVersion, 7, 'a rolled-back change is never seen');
  } finally {
    await db.destroy();
    await database.drop();
  }
});
