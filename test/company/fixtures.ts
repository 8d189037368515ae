// A small, readable company for the company-data tests: two departments, every shift category, and
// helpers to add users, contracts and shifts to an import document and to read the API back.
import { DateTime } from 'luxon';
import { SECTIONS, type Section } from '../../src/company/import-schema.ts';
import { getJson, type JsonResponse, type Page } from '../support/http.ts';

/** An import document as a test builds it: loose, so a test can also write wrong values. */
export type TestDocument = Record<Section, Array<Record<string, unknown>>>;

export function baseDocument(): TestDocument {
  return {
    departments: [
      { ref: 'kitchen', name: 'Kitchen', code: 'KIT' },
      { ref: 'floor', name: 'Floor', code: 'FLR' },
    ],
    positions: [
      { ref: 'cook', name: 'Cook', departmentRef: 'kitchen' },
      { ref: 'waiter', name: 'Waiter', departmentRef: 'floor' },
    ],
    shiftTypes: [
      { ref: 'work', name: 'Shift', category: 'work', paid: true },
      { ref: 'available', name: 'Available', category: 'availability', paid: false },
      { ref: 'standby', name: 'Standby', category: 'relief', paid: true },
      { ref: 'sick', name: 'Sick', category: 'absence', paid: true },
    ],
    contractTypes: [{ ref: 'permanent', name: 'Permanent' }],
    users: [],
    contracts: [],
    shifts: [],
  };
}

export function user(ref: string, fields: Record<string, unknown> = {}) {
  return {
    ref,
    employeeNumber: `E-${ref}`,
    firstName: `First ${ref}`,
    lastName: `Last ${ref}`,
    email: `${ref}@example.com`,
    employmentStart: '2020-01-01',
    employmentEnd: null,
    departmentRefs: ['kitchen'],
    positionRefs: ['cook'],
    badgeId: null,
    timeclockActive: false,
    ...fields,
  };
}

export function contract(ref: string, userRef: string, fields: Record<string, unknown> = {}) {
  return {
    ref,
    userRef,
    contractTypeRef: 'permanent',
    startDate: '2020-01-01',
    endDate: null,
    hoursPerWeek: 38,
    daysPerWeek: 5,
    wage: { amount: 15.25, currency: 'EUR', period: 'hour' },
    departmentRef: 'kitchen',
    positionRef: 'cook',
    ...fields,
  };
}

export function shift(ref: string, date: string, fields: Record<string, unknown> = {}) {
  return {
    ref,
    userRef: null,
    date,
    start: '09:00',
    end: '17:00',
    breakMinutes: 30,
    departmentRef: 'kitchen',
    positionRef: 'cook',
    shiftTypeRef: 'work',
    note: null,
    ...fields,
  };
}

export interface Counts {
  created: number;
  updated: number;
  deleted: number;
}

/** What an import reports for a section it did not change. */
export const NOTHING: Counts = { created: 0, updated: 0, deleted: 0 };

/** An import's report where it only created: `created` entries per section, nothing elsewhere. */
export function createdCounts(created: Partial<Record<Section, number>> = {}): Record<Section, Counts> {
  return Object.fromEntries(SECTIONS.map((section) => [section, { ...NOTHING, created: created[section] ?? 0 }])) as Record<Section, Counts>;
}

/** An import's report where nothing changed (a re-import of the same document). */
export const NOTHING_CHANGED = createdCounts();

/** A date `days` from today in `zone`, as YYYY-MM-DD. */
export function dayFromToday(days: number, zone = 'Europe/Amsterdam', now = Date.now()): string {
  return DateTime.fromMillis(now, { zone }).plus({ days }).toISODate() ?? '';
}

/** GET a company-API path with the tenant's ID token; returns status, headers and parsed body. */
export function apiGet<T = Record<string, unknown>>(baseUrl: string, token: string, path: string, headers: Record<string, string> = {}): Promise<JsonResponse<T>> {
  return getJson<T>(`${baseUrl}/api/v1${path}`, token, headers);
}

/** Follows nextCursor to the end and returns every item and the number of pages. */
export async function walk<T>(baseUrl: string, token: string, path: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: { status: number; body: Page<T> } = await apiGet<Page<T>>(baseUrl, token, cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path);
    if (page.status !== 200) throw new Error(`page ${pages} answered ${page.status}`);
    items.push(...page.body.data);
    cursor = page.body.nextCursor;
    pages += 1;
  } while (cursor);
  return { items, pages };
}

const HH_MM = 'must be a time as HH:MM (00:00 to 23:59)';
const nowhere = (kind: string, ref: string) => `refers to no ${kind}: "${ref}" is neither in this document nor stored for this company`;

/**
 * A document whose entries each have problems of shape and problems of reference, date or
 * uniqueness, and every one of those problems in the order a rejection lists them: by entry, then by
 * field in the schema's order (unknown fields last). Over baseDocument's departments, positions, types.
 */
export function mixedProblems(): { document: TestDocument; errors: Array<{ path: string; message: string }> } {
  const document = {
    ...baseDocument(),
    users: [
      user('ann', { badgeId: 'B-1' }),
      user('bob', { employeeNumber: 7, employmentStart: '2026-02-30', departmentRefs: ['cellar'] }),
      user('cy', { firstName: '', badgeId: 'B-1' }),
      // A list or object of the wrong type is a problem of shape only; the entry's other fields are checked.
      user('dee', { departmentRefs: 'kitchen', positionRefs: ['chef'] }),
    ],
    contracts: [
      contract('c1', 'nobody', { contractTypeRef: 'temp', hoursPerWeek: -1, wage: { amount: 12.345, period: 'hour' } }),
      contract('c2', 'ann', { startDate: '2026-05-01', endDate: '2026-04-01', daysPerWeek: 8, positionRef: 'chef' }),
      contract('c3', 'nobody', { wage: 'lots', endDate: 'never' }),
    ],
    shifts: [
      // The reviewer's example.
      shift('s1', '2026-06-01', { start: '25:00', departmentRef: 'nope', shiftTypeRef: 'nope' }),
      { ...shift('s1', '2026-06-01', { userRef: 'ghost', breakMinutes: -5 }), colour: 'red' },
      shift('s3', '2026-02-30', { shiftTypeRef: 'sick', note: 5 }),
      // A ref that is no string is a problem of shape only; a ref to a malformed entry (bob) is none.
      shift('s4', '2026-06-02', { userRef: 'bob', end: 'late', departmentRef: 5 }),
    ],
  };
  const errors = [
    { path: '/users/1/employeeNumber', message: 'must be string' },
    { path: '/users/1/employmentStart', message: 'is not a calendar date' },
    { path: '/users/1/departmentRefs/0', message: nowhere('department', 'cellar') },
    { path: '/users/2/firstName', message: 'must be at least 1 characters' },
    { path: '/users/2/badgeId', message: 'is already the badge of /users/0' },
    { path: '/users/3/departmentRefs', message: 'must be array' },
    { path: '/users/3/positionRefs/0', message: nowhere('position', 'chef') },
    { path: '/contracts/0/userRef', message: nowhere('user', 'nobody') },
    { path: '/contracts/0/contractTypeRef', message: nowhere('contract type', 'temp') },
    { path: '/contracts/0/hoursPerWeek', message: 'must be >= 0' },
    { path: '/contracts/0/wage/amount', message: 'must have at most 2 decimals' },
    { path: '/contracts/1/endDate', message: 'is before startDate' },
    { path: '/contracts/1/daysPerWeek', message: 'must be <= 7' },
    { path: '/contracts/1/positionRef', message: nowhere('position', 'chef') },
    { path: '/contracts/2/userRef', message: nowhere('user', 'nobody') },
    { path: '/contracts/2/endDate', message: 'must be a date as YYYY-MM-DD' },
    { path: '/contracts/2/wage', message: 'must be object' },
    { path: '/shifts/0/start', message: HH_MM },
    { path: '/shifts/0/departmentRef', message: nowhere('department', 'nope') },
    { path: '/shifts/0/shiftTypeRef', message: nowhere('shift type', 'nope') },
    { path: '/shifts/1/ref', message: 'repeats the ref "s1" of /shifts/0' },
    { path: '/shifts/1/userRef', message: nowhere('user', 'ghost') },
    { path: '/shifts/1/breakMinutes', message: 'must be >= 0' },
    { path: '/shifts/1/colour', message: 'unknown property "colour"' },
    { path: '/shifts/2/userRef', message: 'is required: an absence belongs to a user' },
    { path: '/shifts/2/date', message: 'is not a calendar date' },
    { path: '/shifts/2/note', message: 'must be string,null' },
    { path: '/shifts/3/end', message: HH_MM },
    { path: '/shifts/3/departmentRef', message: 'must be string' },
  ];
  return { document, errors };
}
