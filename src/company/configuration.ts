// getConfiguration: the company and its primary entities, whose ids the other endpoints refer to.
import { Type, type Static } from 'typebox';
import type { Db } from '../platform/db/database.ts';
import { CompanySummary, type CompanyRecord } from '../tenancy/companies.ts';

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
    departments,
    positions: positions.map((p) => ({ id: p.id, name: p.name, departmentId: p.department_id })),
    shiftTypes: shiftTypes.map((s) => ({ id: s.id, name: s.name, category: s.category as Static<typeof ShiftCategory>, paid: s.paid === 1 })),
    contractTypes,
  };
}
