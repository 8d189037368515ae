// getConfiguration: the company and its primary entities, whose ids the other endpoints refer to.
import { Type, type Static } from 'typebox';
import type { Selectable } from 'kysely';
import { sqliteHandleOf, type Db } from '../platform/db/database.ts';
import type { CompaniesTable } from '../iam/tables.ts';
import { notFound } from '../platform/errors.ts';
import type { ContractTypesTable, DepartmentsTable, PositionsTable, ShiftTypesTable } from './tables.ts';

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
    departments: departments.map(presentDepartment),
    positions: positions.map(presentPosition),
    shiftTypes: shiftTypes.map(presentShiftType),
    contractTypes: contractTypes.map(presentContractType),
  };
}

// Each entity as the configuration shows it (also the data of its change-log entries).
export const presentDepartment = (row: Pick<DepartmentsTable, 'id' | 'name' | 'code'>) => ({ id: row.id, name: row.name, code: row.code });
export const presentPosition = (row: Pick<PositionsTable, 'id' | 'name' | 'department_id'>) => ({ id: row.id, name: row.name, departmentId: row.department_id });
export const presentShiftType = (row: Pick<ShiftTypesTable, 'id' | 'name' | 'category' | 'paid'>) => ({ id: row.id, name: row.name, category: row.category as Static<typeof ShiftCategory>, paid: row.paid === 1 });
export const presentContractType = (row: Pick<ContractTypesTable, 'id' | 'name'>) => ({ id: row.id, name: row.name });
