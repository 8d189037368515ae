// The companies every tenant-scoped request starts from: the company record (time zone, currency,
// data version) and the organisation/company check. iam, company, inbound and timeclock read
// companies through here.
import { Type, type Static } from 'typebox';
import type { Selectable } from 'kysely';
import { sqliteHandleOf, type Db } from '../platform/db/database.ts';
import { notFound } from '../platform/errors.ts';
import type { CompaniesTable } from './tables.ts';

export const CompanySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  timezone: Type.String({ description: 'IANA time zone; every date of this company is local to it.' }),
  currency: Type.String({ description: 'ISO 4217 code' }),
  locale: Type.String({ description: 'BCP 47 tag' }),
});

export interface CompanyRecord extends Static<typeof CompanySummary> {
  /** Changes whenever an import changes the company's data (the response-cache key). */
  dataVersion: number;
}

const COMPANY_BY_ID = 'select id, name, timezone, currency, locale, data_version from companies where id = ?';

/**
 * The token's company and its data version. Every company request starts here, so on SQLite it is a
 * direct read of committed data (see readCommittedRow) rather than a query through Kysely: that one
 * read is about half the cost of a cached configuration answer otherwise.
 */
export async function findCompany(db: Db, companyId: string): Promise<CompanyRecord> {
  const sqlite = sqliteHandleOf(db);
  const company = sqlite
    ? (sqlite.readCommittedRow(COMPANY_BY_ID, [companyId]) as Selectable<CompaniesTable> | undefined)
    : await db.selectFrom('companies').select(['id', 'name', 'timezone', 'currency', 'locale', 'data_version']).where('id', '=', companyId).executeTakeFirst();
  if (!company) throw notFound('The company of this token no longer exists.');
  return { id: company.id, name: company.name, timezone: company.timezone, currency: company.currency, locale: company.locale, dataVersion: company.data_version };
}

/**
 * The /timeclock operations reach every company of the token's organisation; `companyId` narrows
 * them to one, and a company outside the organisation is 404 (indistinguishable from none at all).
 */
export async function requireOrganisationCompany(db: Db, organisationId: string, companyId: string): Promise<void> {
  const company = await db.selectFrom('companies').select('id').where('id', '=', companyId).where('organisation_id', '=', organisationId).executeTakeFirst();
  if (!company) throw notFound(`No company ${companyId} in this organisation.`);
}
