// Migration 0016 gives every revocation a commit-ordered `revoked_seq`, set by a trigger so that any
// writer sets it: a plain UPDATE of revoked_at, as an older release still serving during a rolling
// deploy writes it. Later revocations get larger seqs, a revoked grant keeps its seq, and down
// removes the column, the trigger and (SQLite) the counter again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { down, up } from '../../../../src/platform/db/migrations/0016_revocation_order.ts';
import { testDialect, useMigratedDatabase } from '../../../support/database.ts';
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

test('the poll finds revoked grants through the index of revoked seqs, which leaves out the grants never revoked', async () => {
  await grants(3);
  // readRevocations' condition (src/iam/grants.ts), with sequential scans priced out on PostgreSQL.
  const lines = await database.db.transaction().execute(async (trx) => {
    if (testDialect === 'postgres') {
      await sql`set local enable_seqscan = off`.execute(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw('explain select id from grants where revoked_seq >= $1 or revoked_seq = any($2)', [5, [1, 2]]));
      return rows.map((row) => row['QUERY PLAN']);
    }
    const { rows } = await trx.executeQuery<{ detail: string }>(CompiledQuery.raw('explain query plan select id from grants where revoked_seq >= ?', [5]));
    return rows.map((row) => row.detail);
  });
  assert.ok(lines.some((line) => line.includes('grants_revoked_seq')), lines.join('\n'));
  assert.ok(!lines.some((line) => /Seq Scan|^SCAN grants$/.test(line)), lines.join('\n'));
  const index = testDialect === 'postgres'
    ? (await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'grants_revoked_seq'`.execute(database.db)).rows[0]?.indexdef
    : (await sql<{ sql: string }>`select sql from sqlite_master where name = 'grants_revoked_seq'`.execute(database.db)).rows[0]?.sql;
  assert.match(index ?? '', /where .*revoked_seq.* is not null/i, 'a token issue inserts no entry into it');
});
