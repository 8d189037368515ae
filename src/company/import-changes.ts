// The change-log entries of an import (CONTRACT §7), in the order the import applies its writes:
// removed shifts, contracts and users first, then every upsert section, then the removed positions,
// departments, shift and contract types; so a reader applying them in order never meets a reference
// to something it has not seen. `data` is built from the rows exactly as they are written.
import type { NewChange, ChangeResourceType } from '../changes/change-log.ts';
import { presentContractType, presentDepartment, presentPosition, presentShiftType } from './configuration.ts';
import { presentContract } from './contracts.ts';
import type { CompanyRows, ImportPlan, RowOf } from './import-plan.ts';
import { SECTIONS, type Section } from './import-schema.ts';
import { presentShift } from './shifts.ts';
import type { ShiftsTable } from './tables.ts';
import { presentUser } from './users.ts';
import { filterPaced, mapPaced, type Pace } from '../platform/cooperative.ts';

const RESOURCE_OF: Record<Section, ChangeResourceType> = {
  departments: 'department',
  positions: 'position',
  shiftTypes: 'shift_type',
  contractTypes: 'contract_type',
  users: 'user',
  contracts: 'contract',
  shifts: 'shift',
};

function tombstones(plan: ImportPlan, section: Section): NewChange[] {
  return plan[section].deleteIds.map((id) => ({ resourceType: RESOURCE_OF[section], action: 'deleted', resourceId: id, data: null }));
}

/** Shift types' categories after the import, by id. */
function categories(plan: ImportPlan, rows: CompanyRows): Map<string, string> {
  const byId = new Map(rows.shiftTypes.map((row) => [row.id, row.category]));
  for (const row of plan.shiftTypes.upserts) byId.set(row.id, row.category);
  return byId;
}

function presenter(plan: ImportPlan, rows: CompanyRows, timezone: string): { [S in Section]: (row: RowOf<S>) => unknown } {
  const category = categories(plan, rows);
  return {
    departments: presentDepartment,
    positions: presentPosition,
    shiftTypes: presentShiftType,
    contractTypes: presentContractType,
    users: (row) => presentUser(row, timezone),
    contracts: (row) => presentContract(row, timezone),
    shifts: (row) => presentShift({ ...row, category: category.get(row.shift_type_id) ?? '' }, timezone),
  };
}

async function upserts<S extends Section>(plan: ImportPlan, rows: CompanyRows, section: S, present: (row: RowOf<S>) => unknown, pace: Pace): Promise<NewChange[]> {
  const stored = new Set(await mapPaced(rows[section] as Array<{ id: string }>, pace, (row) => row.id));
  return mapPaced(plan[section].upserts as RowOf<S>[], pace, (row): NewChange => ({
    resourceType: RESOURCE_OF[section],
    action: stored.has(row.id) ? 'updated' : 'created',
    resourceId: row.id,
    data: present(row),
  }));
}

/**
 * Shifts the import leaves alone whose shift type changes category: the timetable shows them
 * changed (each shift carries its type's category), so they are logged as updated too.
 */
async function recategorisedShifts(plan: ImportPlan, rows: CompanyRows, present: (row: ShiftsTable) => unknown, pace: Pace): Promise<NewChange[]> {
  const before = new Map(rows.shiftTypes.map((row) => [row.id, row.category]));
  const changed = new Set(plan.shiftTypes.upserts.filter((row) => before.has(row.id) && before.get(row.id) !== row.category).map((row) => row.id));
  if (changed.size === 0) return [];
  const touched = new Set([...plan.shifts.upserts.map((row) => row.id), ...plan.shifts.deleteIds]);
  const recategorised = await filterPaced(rows.shifts, pace, (row) => changed.has(row.shift_type_id) && !touched.has(row.id));
  return mapPaced(recategorised, pace, (row): NewChange => ({ resourceType: 'shift', action: 'updated', resourceId: row.id, data: present(row) }));
}

/** The change-log entries of `plan`, built in slices (`pace`): a large import presents hundreds of thousands of rows. */
export async function importChanges(plan: ImportPlan, rows: CompanyRows, timezone: string, pace: Pace): Promise<NewChange[]> {
  const present = presenter(plan, rows, timezone);
  const parts: NewChange[][] = [(['shifts', 'contracts', 'users'] as const).flatMap((section) => tombstones(plan, section))];
  for (const section of SECTIONS) parts.push(await upserts(plan, rows, section, present[section] as (row: RowOf<typeof section>) => unknown, pace));
  parts.push(await recategorisedShifts(plan, rows, present.shifts, pace));
  parts.push((['positions', 'departments', 'shiftTypes', 'contractTypes'] as const).flatMap((section) => tombstones(plan, section)));
  return parts.flat();
}
