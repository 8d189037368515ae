// The organisation a console user belongs to, as its pages name it.
import type { Db } from '../platform/db/database.ts';
import { notFound } from '../platform/errors.ts';

export async function organisationOf(db: Db, organisationId: string): Promise<{ id: string; name: string }> {
  const row = await db.selectFrom('organisations').select(['id', 'name']).where('id', '=', organisationId).executeTakeFirst();
  if (!row) throw notFound(`No organisation ${organisationId}.`);
  return row;
}
