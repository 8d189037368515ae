// The organisations table's queries, which iam, sso, the console and the demo share: the one
// "does this organisation exist" check (404 "No organisation …"), the insert, and "is there any".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useMigratedDatabase } from '../support/database.ts';
import { anyOrganisationExists, insertOrganisation, requireOrganisation } from '../../src/tenancy/organisations.ts';

const database = useMigratedDatabase();

test('a fresh database has no organisation; once one is inserted, it is found with its name', async () => {
  assert.equal(await anyOrganisationExists(database.db), false);
  await insertOrganisation(database.db, { id: 'org_found', name: 'Bistro Group', created_at: 1 });
  assert.equal(await anyOrganisationExists(database.db), true);
  assert.deepEqual(await requireOrganisation(database.db, 'org_found'), { id: 'org_found', name: 'Bistro Group' });
});

test('an unknown organisation is a 404 naming the id', async () => {
  await assert.rejects(requireOrganisation(database.db, 'org_missing'), (error: { status?: number; message?: string }) => error.status === 404 && /No organisation org_missing\./.test(error.message ?? ''));
});
