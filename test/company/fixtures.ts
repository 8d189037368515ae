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
