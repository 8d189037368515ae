// The companies every tenant-scoped request starts from: the company record (time zone, currency,
// data version) and the organisation/company check. The companies table's own queries live here
// (iam, company, inbound and timeclock read and write companies through it); other tables' queries
// may join it.
import { Type, type Static } from 'typebox';
import type { Insertable, Selectable } from 'kysely';
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

/** The time zone of a company that must exist (inside a transaction that already checked it). */
export async function companyTimezone(db: Db, companyId: string): Promise<string> {
  const company = await db.selectFrom('companies').select('timezone').where('id', '=', companyId).executeTakeFirstOrThrow();
  return company.timezone;
}

/** A company's organisation and the settings an import is planned with, or undefined when unknown. */
export async function companySettings(db: Db, companyId: string): Promise<{ organisationId: string; timezone: string; currency: string } | undefined> {
  const row = await db.selectFrom('companies').select(['organisation_id', 'timezone', 'currency']).where('id', '=', companyId).executeTakeFirst();
  return row ? { organisationId: row.organisation_id, timezone: row.timezone, currency: row.currency } : undefined;
}

/** A company, within one organisation when `organisationId` is given. */
export async function companyIn(db: Db, companyId: string, organisationId?: string): Promise<(Static<typeof CompanySummary> & { organisation_id: string }) | undefined> {
  let query = db.selectFrom('companies').select(['id', 'organisation_id', 'name', 'timezone', 'currency', 'locale']).where('id', '=', companyId);
  if (organisationId !== undefined) query = query.where('organisation_id', '=', organisationId);
  return query.executeTakeFirst();
}

/** The organisation's companies by name. */
export async function companiesOf(db: Db, organisationId: string): Promise<Static<typeof CompanySummary>[]> {
  const rows = await db.selectFrom('companies').select(['id', 'name', 'timezone', 'currency', 'locale']).where('organisation_id', '=', organisationId).orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, timezone: r.timezone, currency: r.currency, locale: r.locale }));
}

export async function insertCompany(db: Db, company: Omit<Insertable<CompaniesTable>, 'data_version'>): Promise<void> {
  await db.insertInto('companies').values(company).execute();
}

/** A new data version: every cached answer derived from the company's data is stale. */
export async function bumpDataVersion(db: Db, companyId: string, now: number): Promise<void> {
  await db.updateTable('companies').set((eb) => ({ data_version: eb('data_version', '+', 1), updated_at: now })).where('id', '=', companyId).execute();
}
