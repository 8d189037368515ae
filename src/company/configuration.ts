// getConfiguration: the company and its primary entities, whose ids the other endpoints refer to.
import { Type, type Static } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import { CompanySummary, type CompanyRecord } from '../tenancy/companies.ts';
import type { ContractTypesTable, DepartmentsTable, PositionsTable, ShiftTypesTable } from './tables.ts';

export const ShiftCategory = Type.Union([Type.Literal('work'), Type.Literal('availability'), Type.Literal('relief'), Type.Literal('absence')]);

export const Configuration = Type.Object({
  company: CompanySummary,
  departments: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), code: Type.String() })),
  positions: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), departmentId: Type.String() })),
  shiftTypes: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), category: ShiftCategory, paid: Type.Boolean() })),
  contractTypes: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
});
export type Configuration = Static<typeof Configuration>;

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
