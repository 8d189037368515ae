// Row types of the company data. Every row carries company_id and every query names it.
// Dates are 'YYYY-MM-DD' text in the company's zone; instants are epoch milliseconds.

export interface DepartmentsTable {
  id: string;
  company_id: string;
  ref: string;
  name: string;
  code: string;
  updated_at: number;
}

export interface PositionsTable {
  id: string;
  company_id: string;
  ref: string;
  name: string;
  department_id: string;
  updated_at: number;
}

export interface ShiftTypesTable {
  id: string;
  company_id: string;
  ref: string;
  name: string;
  category: string;
  paid: number;
  updated_at: number;
}

export interface ContractTypesTable {
  id: string;
  company_id: string;
  ref: string;
  name: string;
  updated_at: number;
}

export interface EmployeesTable {
  id: string;
  company_id: string;
  /** Denormalised so a badge id is unique within an organisation by a plain unique index. */
  organisation_id: string;
  ref: string;
  employee_number: string;
  first_name: string;
  last_name: string;
  email: string | null;
  employment_start: string;
  employment_end: string | null;
  /** JSON arrays of department and position ids. */
  department_ids: string;
  position_ids: string;
  badge_id: string | null;
  timeclock_active: number;
  activated_at: number | null;
  updated_at: number;
}

export interface ContractsTable {
  id: string;
  company_id: string;
  ref: string;
  employee_id: string;
  contract_type_id: string;
  start_date: string;
  end_date: string | null;
  /** Hundredths of an hour, so 37.5 hours is stored exactly. */
  hours_per_week_centi: number;
  /** Hundredths of a day, so 4.5 days is stored exactly. */
  days_per_week_centi: number;
  /** Wage in minor units (cents). */
  wage_minor: number;
  wage_currency: string;
  wage_period: string;
  department_id: string | null;
  position_id: string | null;
  updated_at: number;
}

export interface ShiftsTable {
  id: string;
  company_id: string;
  ref: string;
  date: string;
  starts_at: number;
  ends_at: number;
  break_minutes: number;
  employee_id: string | null;
  department_id: string;
  position_id: string | null;
  shift_type_id: string;
  note: string | null;
  updated_at: number;
}

export interface CompanyTables {
  departments: DepartmentsTable;
  positions: PositionsTable;
  shift_types: ShiftTypesTable;
  contract_types: ContractTypesTable;
  employees: EmployeesTable;
  contracts: ContractsTable;
  shifts: ShiftsTable;
}

declare module '../platform/db/schema.ts' {
  interface Database extends CompanyTables {}
}
