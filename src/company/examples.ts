// Examples for the OpenAPI description of the company API: one small restaurant whose ids recur
// across the examples, so a reader can follow a shift to its user, department, position and type.
// Instants are written in the company's offset (Europe/Amsterdam, +01:00 in November).
import type { CompanyUser } from './users.ts';
import type { Configuration } from './configuration.ts';
import type { Contract } from './contracts.ts';
import type { Shift } from './shifts.ts';
import type { TimetableFeed } from './feed.ts';
import { EXAMPLE_IDS } from '../platform/examples.ts';

const ids = EXAMPLE_IDS;

export const configurationExample: Configuration = {
  company: { id: ids.company, name: 'Brasserie De Haven', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' },
  departments: [
    { id: ids.kitchen, name: 'Kitchen', code: 'KIT' },
    { id: ids.service, name: 'Service', code: 'SRV' },
  ],
  positions: [
    { id: ids.chef, name: 'Chef', departmentId: ids.kitchen },
    { id: ids.waiter, name: 'Waiter', departmentId: ids.service },
  ],
  shiftTypes: [
    { id: ids.dayShift, name: 'Day shift', category: 'work', paid: true },
    { id: 'sty_Sk8fG1wN5zJq3UeC', name: 'Sick leave', category: 'absence', paid: true },
  ],
  contractTypes: [
    { id: 'cty_Fu3cZ8hL6tWy1GsA', name: 'Full-time' },
    { id: 'cty_Pt5mK9xQ2vBn7RwD', name: 'Part-time' },
  ],
};

export const usersExample: { data: CompanyUser[]; nextCursor: null } = {
  data: [
    {
      id: ids.jan,
      employeeNumber: '1001',
      firstName: 'Jan',
      lastName: 'de Vries',
      email: 'jan.devries@example.com',
      departmentIds: [ids.kitchen],
      positionIds: [ids.chef],
      employmentStart: '2023-03-01',
      employmentEnd: null,
      timeclockActive: true,
      updatedAt: '2026-11-20T14:32:05+01:00',
    },
    {
      id: ids.sanne,
      employeeNumber: '1002',
      firstName: 'Sanne',
      lastName: 'Bakker',
      email: null,
      departmentIds: [ids.service],
      positionIds: [ids.waiter],
      employmentStart: '2024-06-15',
      employmentEnd: '2026-12-31',
      timeclockActive: false,
      updatedAt: '2026-11-18T09:10:44+01:00',
    },
  ],
  nextCursor: null,
};

export const contractsExample: { data: Contract[]; nextCursor: null } = {
  data: [
    {
      id: 'con_Rb7wE2kT9mXs4LpN',
      userId: ids.jan,
      contractTypeId: 'cty_Fu3cZ8hL6tWy1GsA',
      startDate: '2023-03-01',
      endDate: null,
      hoursPerWeek: 38,
      daysPerWeek: 5,
      wage: { amount: 17.85, currency: 'EUR', period: 'hour' },
      departmentId: ids.kitchen,
      positionId: ids.chef,
      updatedAt: '2026-11-20T14:32:05+01:00',
    },
    {
      id: 'con_Hx1qV6cY3nJf8WdK',
      userId: ids.sanne,
      contractTypeId: 'cty_Pt5mK9xQ2vBn7RwD',
      startDate: '2024-06-15',
      endDate: '2026-12-31',
      hoursPerWeek: 24.5,
      daysPerWeek: 3.5,
      wage: { amount: 2150, currency: 'EUR', period: 'month' },
      departmentId: ids.service,
      positionId: null,
      updatedAt: '2026-11-18T09:10:44+01:00',
    },
  ],
  nextCursor: null,
};

const morningShift: Shift = {
  id: 'shf_Np3kZ7vQ1xRt5GmB',
  date: '2026-11-23',
  startsAt: '2026-11-23T09:00:00+01:00',
  endsAt: '2026-11-23T17:30:00+01:00',
  breakMinutes: 30,
  userId: ids.jan,
  departmentId: ids.kitchen,
  positionId: ids.chef,
  shiftTypeId: ids.dayShift,
  category: 'work',
  note: null,
  updatedAt: '2026-11-20T14:32:05+01:00',
};

/** An open shift (no user yet) that ends after midnight: it belongs to the day it starts. */
const openEveningShift: Shift = {
  id: 'shf_Tq9dL4wX8cVb2YhS',
  date: '2026-11-23',
  startsAt: '2026-11-23T17:00:00+01:00',
  endsAt: '2026-11-24T00:30:00+01:00',
  breakMinutes: 0,
  userId: null,
  departmentId: ids.service,
  positionId: ids.waiter,
  shiftTypeId: ids.dayShift,
  category: 'work',
  note: 'Busy evening: 40 covers booked',
  updatedAt: '2026-11-21T11:05:00+01:00',
};

export const timetableExample: { data: Shift[]; nextCursor: null } = { data: [morningShift, openEveningShift], nextCursor: null };

export const feedExample: TimetableFeed = {
  date: '2026-11-23',
  company: { id: ids.company, name: 'Brasserie De Haven', timezone: 'Europe/Amsterdam' },
  shifts: [
    {
      ...morningShift,
      user: { id: ids.jan, employeeNumber: '1001', firstName: 'Jan', lastName: 'de Vries' },
      department: { id: ids.kitchen, name: 'Kitchen', code: 'KIT' },
      position: { id: ids.chef, name: 'Chef', departmentId: ids.kitchen },
      shiftType: { id: ids.dayShift, name: 'Day shift', category: 'work', paid: true },
    },
    {
      ...openEveningShift,
      user: null,
      department: { id: ids.service, name: 'Service', code: 'SRV' },
      position: { id: ids.waiter, name: 'Waiter', departmentId: ids.service },
      shiftType: { id: ids.dayShift, name: 'Day shift', category: 'work', paid: true },
    },
  ],
};
