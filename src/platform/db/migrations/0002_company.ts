// Company data. Every table is keyed by company first, so each query's cost depends on that
// company's size, never on the number of companies. References between company rows carry no
// foreign keys: checking one on delete would need an index led by the child column (a scan across
// every company otherwise), and the import — the only writer — checks every reference itself.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('departments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('positions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('department_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('shift_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('paid', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('contract_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('employees')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('employee_number', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('employment_start', 'text', (c) => c.notNull())
    .addColumn('employment_end', 'text')
    .addColumn('department_ids', 'text', (c) => c.notNull())
    .addColumn('position_ids', 'text', (c) => c.notNull())
    .addColumn('badge_id', 'text')
    .addColumn('timeclock_active', 'integer', (c) => c.notNull())
    .addColumn('activated_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('employees_company_number').on('employees').columns(['company_id', 'employee_number', 'id']).execute();
  // A badge id is unique within an organisation (a terminal serves all its companies); the
  // organisation is the tenant of this one index.
  await db.schema.createIndex('employees_org_badge').on('employees').columns(['organisation_id', 'badge_id']).unique().execute();

  await db.schema
    .createTable('contracts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('employee_id', 'text', (c) => c.notNull())
    .addColumn('contract_type_id', 'text', (c) => c.notNull())
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('end_date', 'text')
    .addColumn('hours_per_week_centi', 'integer', (c) => c.notNull())
    .addColumn('days_per_week_centi', 'integer', (c) => c.notNull())
    .addColumn('wage_minor', 'bigint', (c) => c.notNull())
    .addColumn('wage_currency', 'text', (c) => c.notNull())
    .addColumn('wage_period', 'text', (c) => c.notNull())
    .addColumn('department_id', 'text')
    .addColumn('position_id', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contracts_company_start').on('contracts').columns(['company_id', 'start_date', 'id']).execute();
  await db.schema.createIndex('contracts_company_employee').on('contracts').columns(['company_id', 'employee_id']).execute();

  await db.schema
    .createTable('shifts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'bigint', (c) => c.notNull())
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('break_minutes', 'integer', (c) => c.notNull())
    .addColumn('employee_id', 'text')
    .addColumn('department_id', 'text', (c) => c.notNull())
    .addColumn('position_id', 'text')
    .addColumn('shift_type_id', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shifts_company_date').on('shifts').columns(['company_id', 'date', 'starts_at', 'id']).execute();
  await db.schema.createIndex('shifts_company_employee').on('shifts').columns(['company_id', 'employee_id']).execute();

  for (const table of ['departments', 'positions', 'shift_types', 'contract_types', 'employees', 'contracts', 'shifts']) {
    // Import upserts by the caller's ref within one company.
    await db.schema.createIndex(`${table}_company_ref`).on(table).columns(['company_id', 'ref']).unique().execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['shifts', 'contracts', 'employees', 'contract_types', 'shift_types', 'positions', 'departments']) {
    await db.schema.dropTable(table).execute();
  }
}
