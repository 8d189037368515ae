// The organisation a console user belongs to and its companies, as its pages name them.
import type { Db } from '../platform/db/database.ts';
import { notFound } from '../platform/errors.ts';
import { listCompanies, type CompanySummary } from '../iam/organisation-reads.ts';

export async function organisationOf(db: Db, organisationId: string): Promise<{ id: string; name: string }> {
  const row = await db.selectFrom('organisations').select(['id', 'name']).where('id', '=', organisationId).executeTakeFirst();
  if (!row) throw notFound(`No organisation ${organisationId}.`);
  return row;
}

/** A company of the organisation, as the console shows it; another organisation's is "not found". */
export async function companyOf(db: Db, organisationId: string, companyId: string): Promise<CompanySummary> {
  const company = (await listCompanies(db, organisationId)).find((c) => c.id === companyId);
  if (!company) throw notFound(`No company ${companyId}.`);
  return company;
}
