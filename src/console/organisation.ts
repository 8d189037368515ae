// The company a console page is about, as its pages name it.
import type { Static } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import { notFound } from '../platform/errors.ts';
import { companyIn, type CompanySummary } from '../tenancy/companies.ts';

/** A company of the organisation, as the console shows it; another organisation's is "not found". */
export async function companyOf(db: Db, organisationId: string, companyId: string): Promise<Static<typeof CompanySummary>> {
  const company = await companyIn(db, companyId, organisationId);
  if (!company) throw notFound(`No company ${companyId}.`);
  return company;
}
