// getConfiguration: the company and its primary entities, whose ids the other endpoints refer to.
import { Type, type Static } from 'typebox';
import type { Selectable } from 'kysely';
import { sqliteHandleOf, type Db } from '../platform/db/database.ts';
import type { CompaniesTable } from '../iam/tables.ts';
import { notFound } from '../platform/errors.ts';

export const ShiftCategory = Type.Union([Type.Literal('work'), Type.Literal('availability'), Type.Literal('relief'), Type.Literal('absence')]);

export const CompanySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  timezone: Type.String({ description: 'IANA time zone; every date of this company is local to it.' }),
  currency: Type.String({ description: 'ISO 4217 code' }),
  locale: Type.String({ description: 'BCP 47 tag' }),
});

export const Configuration = Type.Object({
  company: CompanySummary,
  departments: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), code: Type.String() })),
  positions: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), departmentId: Type.String() })),
  shiftTypes: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), category: ShiftCategory, paid: Type.Boolean() })),
  contractTypes: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
});
export type Configuration = Static<typeof Configuration>;

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

export async function getConfiguration(db: Db, company: CompanyRecord): Promise<Configuration> {
  const companyId = company.id;
  const [departments, positions, shiftTypes, contractTypes] = await Promise.all([
    db.selectFrom('departments').select(['id', 'name', 'code']).where('company_id', '=', companyId).orderBy('name').orderBy('id').execute(),
    db.selectFrom('positions').select(['id', 'name', 'department_id']).where('company_id', '=', companyId).orderBy('name').orderBy('id').execute(),
    db.selectFrom('shift_types').select(['id', 'name', 'category', 'paid']).where('company_id', '=', companyId).orderBy('name').orderBy('id').execute(),
    db.selectFrom('contract_types').select(['id', 'name']).where('company_id', '=', companyId).orderBy('name').orderBy('id').execute(),
  ]);
  return {
    company: { id: company.id, name: company.name, timezone: company.timezone, currency: company.currency, locale: company.locale },
    departments,
    positions: positions.map((p) => ({ id: p.id, name: p.name, departmentId: p.department_id })),
    shiftTypes: shiftTypes.map((s) => ({ id: s.id, name: s.name, category: s.category as Static<typeof ShiftCategory>, paid: s.paid === 1 })),
    contractTypes,
  };
}
