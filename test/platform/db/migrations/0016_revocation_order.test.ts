// Migration 0016 gives every revocation a commit-ordered `revoked_seq`, set by a trigger so that any
// writer sets it: a plain UPDATE of revoked_at, as an older release still serving during a rolling
// deploy writes it. Later revocations get larger seqs, a revoked grant keeps its seq, and down
// removes the column, the trigger and (SQLite) the counter again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { down, up } from '../../../../src/platform/db/migrations/0016_revocation_order.ts';
import { useMigratedDatabase } from '../../../support/database.ts';
import { createGrant } from '../../../../src/iam/grants.ts';
import { createApiClient, createCompany, createOrganisation } from '../../../../src/iam/provisioning.ts';

const database = useMigratedDatabase();

async function grants(count: number): Promise<string[]> {
  const { organisationId } = await createOrganisation(database.db, { name: '0016' });
  const { companyId } = await createCompany(database.db, { organisationId, name: '0016', timezone: 'UTC', currency: 'EUR', locale: 'en-GB' });
  const { clientId } = await createApiClient(database.db, { companyId, name: '0016', redirectUris: ['https://app.example.com/callback'] });
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push(await createGrant(database.db, { clientId, userId: null, kind: 'client_credentials', authTime: 0, chainMaxSeconds: 60 }));
  return ids;
}

async function seqOf(grantId: string): Promise<number | null> {
  return (await database.db.selectFrom('grants').select('revoked_seq').where('id', '=', grantId).executeTakeFirstOrThrow()).revoked_seq;
}

const revoke = (grantId: string) => database.db.updateTable('grants').set({ revoked_at: 1, revoked_reason: 'plain_update' }).where('id', '=', grantId).execute();

test('a plain UPDATE of revoked_at gets a seq, larger for a later revocation; a revoked grant keeps its seq', async () => {
  const [first, second, live] = await grants(3) as [string, string, string];
  await revoke(first);
  await revoke(second);
  const [a, b] = [await seqOf(first), await seqOf(second)];
  assert.ok(a !== null && b !== null && b > a, `${a} < ${b}`);
  await database.db.updateTable('grants').set({ revoked_at: 2, revoked_reason: 'again' }).where('id', '=', first).execute();
  assert.equal(await seqOf(first), a, 'set once, at the revocation');
  assert.equal(await seqOf(live), null);
});

test('down and up again: the column and the trigger go and come back', async () => {
  const db = database.db as unknown as Kysely<unknown>;
  await db.transaction().execute((trx) => down(trx));
  const columns = (await db.introspection.getTables()).find((table) => table.name === 'grants')?.columns.map((column) => column.name) ?? [];
  assert.ok(!columns.includes('revoked_seq'));
  await db.transaction().execute((trx) => up(trx));
  const [grantId] = await grants(1) as [string];
  await revoke(grantId);
  assert.notEqual(await seqOf(grantId), null);
});
