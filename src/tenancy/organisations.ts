// The organisations every tenant belongs to: the organisations table's own queries (iam creates
// them; iam, sso and the console check that one exists; the demo seeds on a database with none).
import type { Insertable } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import { notFound } from '../platform/errors.ts';
import type { OrganisationsTable } from './tables.ts';

export interface Organisation {
  id: string;
  name: string;
}

/** The organisation, or 404 "No organisation …" (an id of the caller's own, or the operator's). */
export async function requireOrganisation(db: Db, organisationId: string): Promise<Organisation> {
  const row = await db.selectFrom('organisations').select(['id', 'name']).where('id', '=', organisationId).executeTakeFirst();
  if (!row) throw notFound(`No organisation ${organisationId}.`);
  return { id: row.id, name: row.name };
}

export async function insertOrganisation(db: Db, organisation: Insertable<OrganisationsTable>): Promise<void> {
  await db.insertInto('organisations').values(organisation).execute();
}

/** Whether any organisation exists (a database with none is a fresh one). */
export async function anyOrganisationExists(db: Db): Promise<boolean> {
  return (await db.selectFrom('organisations').select('id').limit(1).executeTakeFirst()) !== undefined;
}
