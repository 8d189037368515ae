// Migration 0015 gives console invitations an id: the rows already there get ids in created_at order,
// new ids are unique (the index), and down removes the column again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { down, up } from '../../../../src/platform/db/migrations/0015_invitation_ids.ts';
import { testDialect, useMigratedDatabase } from '../../../support/database.ts';
import { createOrganisation } from '../../../../src/iam/provisioning.ts';

const database = useMigratedDatabase();

test('invitations made before the migration get ids in created_at order; ids are unique', async () => {
  const db = database.db as unknown as Kysely<unknown>;
  const { organisationId } = await createOrganisation(database.db, { name: 'Before 0015' });
  await db.transaction().execute((trx) => down(trx));
  const invitation = (tokenHash: string, createdAt: number) => ({ token_hash: tokenHash, organisation_id: organisationId, email: `${tokenHash}@before.example`, role: 'viewer', invited_by: null, created_at: createdAt, expires_at: createdAt + 1000, used_at: null, pending_password_hash: null, pending_totp_secret: null });
  const old = db as Kysely<{ console_invitations: ReturnType<typeof invitation> }>;
  await old.insertInto('console_invitations').values([invitation('c-newest', 3000), invitation('a-oldest', 1000), invitation('b-middle', 2000)]).execute();
  await db.transaction().execute((trx) => up(trx));

  const rows = await database.db.selectFrom('console_invitations').select(['token_hash', 'id']).where('organisation_id', '=', organisationId).orderBy('id').execute();
  assert.deepEqual(rows.map((row) => row.token_hash), ['a-oldest', 'b-middle', 'c-newest']);
  assert.ok(rows.every((row) => /^inv_[\w-]{23}$/.test(row.id)), JSON.stringify(rows));
  const copy = { ...invitation('d-copy', 4000), id: rows[0]?.id ?? '' };
  await assert.rejects(database.db.insertInto('console_invitations').values({ ...copy, role: 'viewer' }).execute(), /console_invitations_id|UNIQUE|duplicate/i);
});

test('on PostgreSQL the ids compare byte by byte (collation "C"), whatever the database\'s own collation', { skip: testDialect !== 'postgres' && 'PostgreSQL only' }, async () => {
  const column = await sql<{ collation_name: string | null }>`select collation_name from information_schema.columns where table_name = 'console_invitations' and column_name = 'id'`.execute(database.db);
  assert.equal(column.rows[0]?.collation_name, 'C');
});
