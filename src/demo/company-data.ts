// The demo company's data as an import document, so it enters through the same door as a
// customer's: a café-restaurant in Amsterdam with four departments, about fifty employees (a few
// already gone, a few starting next month), their contracts, badges, and a timetable from eight days
// back to 38 days ahead with open shifts, overnight bar shifts, availability, stand-by and absences.
import { DateTime } from 'luxon';
import type { ContractEntry as Contract, ImportDocument, ShiftEntry as Shift, UserEntry as User } from '../company/import-schema.ts';
import { addDays } from '../platform/period.ts';
import { seededRandom, type Random } from './random.ts';

export const DEMO_EMPLOYEES = 50;
export const DEMO_DAYS_BACK = 8;
export const DEMO_DAYS_AHEAD = 38;

interface Department {
  ref: string;
  name: string;
  code: string;
  positions: Array<{ ref: string; name: string; monthly: boolean }>;
  /** Local start and end; an end not after the start runs past midnight. */
  shifts: Array<[string, string]>;
}

const DEPARTMENTS: Department[] = [
  { ref: 'kitchen', name: 'Keuken', code: 'KEU', positions: [{ ref: 'chef', name: 'Chef-kok', monthly: true }, { ref: 'cook', name: 'Kok', monthly: false }, { ref: 'dishwasher', name: 'Afwasser', monthly: false }], shifts: [['10:00', '18:00'], ['15:00', '23:00']] },
  { ref: 'floor', name: 'Bediening', code: 'BED', positions: [{ ref: 'floor-manager', name: 'Bedrijfsleider', monthly: true }, { ref: 'waiter', name: 'Ober', monthly: false }, { ref: 'host', name: 'Gastvrouw/-heer', monthly: false }], shifts: [['11:00', '17:00'], ['16:00', '23:30']] },
  // Bar shifts close at 01:30: never in the hour the clocks skip in spring (02:00–03:00).
  { ref: 'bar', name: 'Bar', code: 'BAR', positions: [{ ref: 'bar-manager', name: 'Barmanager', monthly: true }, { ref: 'bartender', name: 'Barmedewerker', monthly: false }], shifts: [['16:00', '00:00'], ['19:00', '01:30']] },
  { ref: 'cleaning', name: 'Schoonmaak', code: 'SCH', positions: [{ ref: 'cleaner', name: 'Schoonmaker', monthly: false }], shifts: [['06:00', '10:00']] },
];

const FIRST_NAMES = ['Anouk', 'Bram', 'Daan', 'Emma', 'Fleur', 'Femke', 'Jesse', 'Julia', 'Lars', 'Lotte', 'Luuk', 'Maud', 'Milan', 'Noa', 'Noah', 'Ruben', 'Sanne', 'Sem', 'Sophie', 'Thijs', 'Tess', 'Tim', 'Vera', 'Yara', 'Zoë', 'Mohamed', 'Fatima', 'Priya', 'Kevin', 'Ilse'];
const LAST_NAMES = ['de Jong', 'Jansen', 'de Vries', 'van den Berg', 'van Dijk', 'Bakker', 'Janssen', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'de Groot', 'Bos', 'Vos', 'Peters', 'Hendriks', 'van Leeuwen', 'Dekker', 'Brouwer', 'El Amrani', 'Yilmaz', 'Kaya'];

function emailOf(first: string, last: string, number: number): string {
  const part = (text: string) => text.normalize('NFD').replace(/[^A-Za-z]/g, '').toLowerCase();
  return `${part(first)}.${part(last)}.${number}@cafe-de-demo.example`;
}

interface Person {
  user: User;
  department: Department;
  position: Department['positions'][number];
  contracts: Contract[];
}

function people(random: Random, today: string): Person[] {
  const nextMonth = DateTime.fromISO(today).plus({ months: 1 }).startOf('month').toISODate() ?? today;
  return Array.from({ length: DEMO_EMPLOYEES }, (_, index) => {
    const number = 1001 + index;
    const department = DEPARTMENTS[index % DEPARTMENTS.length] as Department;
    // The first employee of each department leads it; the rest fill its other positions.
    const position = index < DEPARTMENTS.length ? (department.positions[0] as Department['positions'][number]) : random.pick(department.positions.slice(department.positions.length > 1 ? 1 : 0));
    const firstName = random.pick(FIRST_NAMES);
    const lastName = random.pick(LAST_NAMES);
    const ended = index >= 4 && index < 7;
    const starting = index >= 7 && index < 10;
    const employmentStart = starting ? nextMonth : addDays(today, -random.int(60, 3000));
    const employmentEnd = ended ? addDays(today, -random.int(2, 30)) : index === 10 ? addDays(today, 20) : null;
    const badged = index % 10 !== 9;
    const ref = `emp-${number}`;
    const user: User = {
      ref,
      employeeNumber: String(number),
      firstName,
      lastName,
      email: emailOf(firstName, lastName, number),
      employmentStart,
      employmentEnd,
      departmentRefs: index % 7 === 3 ? [department.ref, 'floor'].filter((r, i, all) => all.indexOf(r) === i) : [department.ref],
      positionRefs: [position.ref],
      badgeId: badged ? `DEMO-${number}` : null,
      timeclockActive: badged && !starting && !ended,
    };
    return { user, department, position, contracts: contractsOf(random, ref, department, position, employmentStart, employmentEnd, today) };
  });
}

function contractsOf(random: Random, userRef: string, department: Department, position: Department['positions'][number], start: string, end: string | null, today: string): Contract[] {
  const hours = position.monthly ? 38 : random.pick([12, 16, 20, 24, 32, 36, 38]);
  const base = {
    contractTypeRef: position.monthly ? 'permanent' : hours < 20 ? 'on-call' : 'fixed-term',
    hoursPerWeek: hours,
    daysPerWeek: Math.min(5, Math.max(2, Math.round(hours / 8))),
    departmentRef: department.ref,
    positionRef: position.ref,
  };
  const wage = (raise: number) => position.monthly
    ? { amount: random.int(2900, 4200) + raise * 100, currency: 'EUR', period: 'month' as const }
    : { amount: (random.int(1440, 1980) + raise * 50) / 100, currency: 'EUR', period: 'hour' as const };
  // Long-serving staff moved to a new contract a while ago: an ended one, then the current one.
  const renewedOn = addDays(today, -random.int(30, 200));
  if (start < addDays(renewedOn, -365) && random.chance(0.3)) {
    return [
      { ref: `${userRef}-c1`, userRef, ...base, startDate: start, endDate: addDays(renewedOn, -1), wage: wage(0) },
      { ref: `${userRef}-c2`, userRef, ...base, startDate: renewedOn, endDate: end, wage: wage(1) },
    ];
  }
  return [{ ref: `${userRef}-c1`, userRef, ...base, startDate: start, endDate: end, wage: wage(0) }];
}

function employedOn(user: User, date: string): boolean {
  return user.employmentStart <= date && (!user.employmentEnd || user.employmentEnd >= date);
}

function breakFor(start: string, end: string): number {
  const minutes = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3));
  const length = (minutes(end) - minutes(start) + 1440) % 1440 || 1440;
  return length >= 360 ? 30 : 0;
}

function timetable(random: Random, staff: Person[], today: string): Shift[] {
  const shifts: Shift[] = [];
  const add = (date: string, shift: Omit<Shift, 'ref' | 'date'>) => shifts.push({ ref: `shift-${date}-${shifts.length + 1}`, date, ...shift });
  const onLeave = new Set(staff.filter((_, i) => i === 12 || i === 25).map((p) => p.user.ref));
  for (let offset = -DEMO_DAYS_BACK; offset <= DEMO_DAYS_AHEAD; offset++) {
    const date = addDays(today, offset);
    const weekend = [6, 7].includes(DateTime.fromISO(date).weekday);
    for (const person of staff) {
      if (!employedOn(person.user, date)) continue;
      const where = { departmentRef: person.department.ref, positionRef: person.position.ref, userRef: person.user.ref };
      if (onLeave.has(person.user.ref) && offset >= 3 && offset <= 9) {
        add(date, { ...where, start: '09:00', end: '17:00', breakMinutes: 0, shiftTypeRef: 'leave', note: 'Vakantie' });
      } else if (random.chance(0.03)) {
        add(date, { ...where, start: '09:00', end: '17:00', breakMinutes: 0, shiftTypeRef: 'sick', note: null });
      } else if (random.chance(weekend ? 0.7 : 0.5)) {
        const [start, end] = random.pick(person.department.shifts);
        add(date, { ...where, start, end, breakMinutes: breakFor(start, end), shiftTypeRef: 'work', note: null });
      } else if (person.user.positionRefs?.[0] !== person.department.positions[0]?.ref && random.chance(0.1)) {
        add(date, { ...where, start: '12:00', end: '22:00', breakMinutes: 0, shiftTypeRef: 'available', note: null });
      }
    }
    // Open shifts still to be filled, and a stand-by per busy department at the weekend.
    for (let n = random.int(1, 3); n > 0; n--) {
      const department = random.pick(DEPARTMENTS);
      const [start, end] = random.pick(department.shifts);
      add(date, { userRef: null, departmentRef: department.ref, positionRef: department.positions.at(-1)?.ref ?? null, start, end, breakMinutes: breakFor(start, end), shiftTypeRef: 'work', note: 'Open dienst' });
    }
    if (weekend) {
      for (const department of DEPARTMENTS.slice(0, 3)) {
        const person = random.pick(staff.filter((p) => p.department === department && employedOn(p.user, date)));
        if (person) add(date, { userRef: person.user.ref, departmentRef: department.ref, positionRef: person.position.ref, start: '17:00', end: '22:00', breakMinutes: 0, shiftTypeRef: 'standby', note: null });
      }
    }
  }
  return shifts;
}

/** The demo company for `today` (YYYY-MM-DD in Europe/Amsterdam); the same seed gives the same data. */
export function demoCompanyDocument(today: string, seed = 1): ImportDocument {
  const random = seededRandom(seed);
  const staff = people(random, today);
  return {
    departments: DEPARTMENTS.map(({ ref, name, code }) => ({ ref, name, code })),
    positions: DEPARTMENTS.flatMap((d) => d.positions.map((p) => ({ ref: p.ref, name: p.name, departmentRef: d.ref }))),
    shiftTypes: [
      { ref: 'work', name: 'Dienst', category: 'work', paid: true },
      { ref: 'available', name: 'Beschikbaar', category: 'availability', paid: false },
      { ref: 'standby', name: 'Stand-by', category: 'relief', paid: true },
      { ref: 'sick', name: 'Ziek', category: 'absence', paid: true },
      { ref: 'leave', name: 'Verlof', category: 'absence', paid: true },
    ],
    contractTypes: [
      { ref: 'permanent', name: 'Vast' },
      { ref: 'fixed-term', name: 'Bepaalde tijd' },
      { ref: 'on-call', name: 'Oproepkracht' },
    ],
    users: staff.map((p) => p.user),
    contracts: staff.flatMap((p) => p.contracts),
    shifts: timetable(random, staff, today),
  };
}
