// The benchmark company (issue 3): 1,000 employees with 2,000 shifts a day, as import documents
// (contract: operator side). Deterministic. Every employee works a morning and an afternoon shift; one shift in
// ten is open, and a few are absences, availability or overnight, so the feed embeds every kind.
import type { ImportDocument, ShiftEntry } from '../src/company/import-schema.ts';
import { addDays } from '../src/platform/period.ts';

const DEPARTMENTS = ['Kitchen', 'Floor', 'Bar', 'Logistics'];
const FIRST_NAMES = ['Anna', 'Bram', 'Chloé', 'Daan', 'Eva', 'Finn', 'Iris', 'Jesse', 'Lotte', 'Milan', 'Noor', 'Sem'];
const LAST_NAMES = ['de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'Bos', 'Vos'];

export interface DatasetShape {
  employees: number;
  shiftsPerDay: number;
}

const departmentRef = (i: number) => `dep-${i % DEPARTMENTS.length}`;
const positionRef = (i: number) => `pos-${i % (DEPARTMENTS.length * 2)}`;

/** Everything but the shifts: departments, positions, shift types, contract types, employees, contracts. */
export function staffDocument(shape: DatasetShape): ImportDocument {
  const users = Array.from({ length: shape.employees }, (_, i) => ({
    ref: `emp-${i}`,
    employeeNumber: `E${String(i + 1).padStart(5, '0')}`,
    firstName: FIRST_NAMES[i % FIRST_NAMES.length]!,
    lastName: LAST_NAMES[i % LAST_NAMES.length]!,
    email: `employee${i + 1}@bench.example`,
    employmentStart: '2020-01-01',
    employmentEnd: null,
    departmentRefs: [departmentRef(i)],
    positionRefs: [positionRef(i)],
    badgeId: `B${String(i + 1).padStart(6, '0')}`,
    timeclockActive: true,
  }));
  return {
    departments: DEPARTMENTS.map((name, i) => ({ ref: `dep-${i}`, name, code: name.slice(0, 3).toUpperCase() })),
    positions: Array.from({ length: DEPARTMENTS.length * 2 }, (_, i) => ({ ref: `pos-${i}`, name: `${i < DEPARTMENTS.length ? 'Lead' : 'Crew'} ${DEPARTMENTS[i % DEPARTMENTS.length]}`, departmentRef: departmentRef(i) })),
    shiftTypes: [
      { ref: 'st-work', name: 'Work', category: 'work', paid: true },
      { ref: 'st-availability', name: 'Available', category: 'availability', paid: false },
      { ref: 'st-relief', name: 'Relief', category: 'relief', paid: true },
      { ref: 'st-absence', name: 'Leave', category: 'absence', paid: true },
    ],
    contractTypes: [
      { ref: 'ct-hourly', name: 'Hourly' },
      { ref: 'ct-monthly', name: 'Monthly' },
    ],
    users,
    contracts: users.map((_, i) => ({
      ref: `con-${i}`,
      userRef: `emp-${i}`,
      contractTypeRef: i % 3 === 0 ? 'ct-monthly' : 'ct-hourly',
      startDate: '2020-01-01',
      endDate: null,
      hoursPerWeek: 32,
      daysPerWeek: 4,
      wage: i % 3 === 0 ? { amount: 3150.5, period: 'month' as const } : { amount: 17.25, period: 'hour' as const },
      departmentRef: departmentRef(i),
      positionRef: positionRef(i),
    })),
  };
}

function shift(date: string, slot: number, shape: DatasetShape): ShiftEntry {
  const employee = slot % shape.employees;
  const afternoon = slot >= shape.shiftsPerDay / 2;
  const open = slot % 10 === 9;
  const overnight = slot % 50 === 7;
  const type = slot % 40 === 3 ? 'st-absence' : slot % 40 === 13 ? 'st-availability' : slot % 40 === 23 ? 'st-relief' : 'st-work';
  return {
    ref: `sh-${date}-${slot}`,
    userRef: open ? null : `emp-${employee}`,
    date,
    start: overnight ? '22:00' : afternoon ? '13:30' : '07:00',
    end: overnight ? '06:00' : afternoon ? '21:00' : '13:00',
    breakMinutes: 30,
    departmentRef: departmentRef(employee),
    positionRef: positionRef(employee),
    shiftTypeRef: type,
    note: slot % 25 === 0 ? 'Inventory count' : null,
  };
}

/** The shifts of `days` consecutive days from `firstDate`, `shiftsPerDay` each. */
export function shiftDocument(firstDate: string, days: number, shape: DatasetShape): ImportDocument {
  const shifts: ShiftEntry[] = [];
  for (let d = 0; d < days; d++) {
    const date = addDays(firstDate, d);
    for (let slot = 0; slot < shape.shiftsPerDay; slot++) shifts.push(shift(date, slot, shape));
  }
  return { shifts };
}
