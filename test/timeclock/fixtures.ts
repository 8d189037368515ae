// Company rows the inbound and timeclock tests need, inserted directly: these suites test the write
// side, not the import that normally fills departments and employees. (Their HTTP calls: test/support/http.ts.)
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/platform/db/database.ts';
import { newId } from '../../src/platform/ids.ts';
import type { Tenant } from '../support/tenants.ts';

export async function addDepartment(db: Db, companyId: string, name = 'Kitchen'): Promise<string> {
  const id = newId('dep');
  await db.insertInto('departments').values({ id, company_id: companyId, ref: id, name, code: name.slice(0, 3).toUpperCase(), updated_at: Date.now() }).execute();
  return id;
}

export interface EmployeeOptions {
  badgeId?: string | null;
  timeclockActive?: boolean;
  firstName?: string;
  lastName?: string;
  employeeNumber?: string;
  activatedAt?: number | null;
}

export interface Employee {
  id: string;
  badgeId: string | null;
  companyId: string;
}

export async function addEmployee(db: Db, tenant: Pick<Tenant, 'companyId' | 'organisationId'>, options: EmployeeOptions = {}): Promise<Employee> {
  const id = newId('emp');
  const badgeId = options.badgeId === undefined ? `B-${randomUUID().slice(0, 8)}` : options.badgeId;
  const now = Date.now();
  await db
    .insertInto('employees')
    .values({
      id,
      company_id: tenant.companyId,
      organisation_id: tenant.organisationId,
      ref: id,
      employee_number: options.employeeNumber ?? id.slice(-6),
      first_name: options.firstName ?? 'Ada',
      last_name: options.lastName ?? 'Lovelace',
      email: null,
      employment_start: '2020-01-01',
      employment_end: null,
      department_ids: '[]',
      position_ids: '[]',
      badge_id: badgeId,
      timeclock_active: options.timeclockActive === false ? 0 : 1,
      activated_at: options.activatedAt === undefined ? now : options.activatedAt,
      updated_at: now,
    })
    .execute();
  return { id, badgeId, companyId: tenant.companyId };
}
