// The /timeclock operations reach every company of the token's organisation; `companyId` narrows
// them to one, and a company outside the organisation is 404 (indistinguishable from none at all).
import type { Db } from '../platform/db/database.ts';
import { notFound } from '../platform/errors.ts';

export async function requireOrganisationCompany(db: Db, organisationId: string, companyId: string): Promise<void> {
  const company = await db.selectFrom('companies').select('id').where('id', '=', companyId).where('organisation_id', '=', organisationId).executeTakeFirst();
  if (!company) throw notFound(`No company ${companyId} in this organisation.`);
}
