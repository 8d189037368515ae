// Reads an import document's shape: every entry checked against its section's schema on its own, so
// each problem is reported at its exact JSON path (`/shifts/3/start`), and every problem at once.
import type { FieldError } from '../platform/errors.ts';
import { schemaErrors } from '../platform/validation.ts';
import { ENTRY_SCHEMAS, SECTIONS, type ContractEntry, type ContractTypeEntry, type DepartmentEntry, type PositionEntry, type Section, type ShiftEntry, type ShiftTypeEntry, type UserEntry } from './import-schema.ts';

export interface EntryTypes {
  departments: DepartmentEntry;
  positions: PositionEntry;
  shiftTypes: ShiftTypeEntry;
  contractTypes: ContractTypeEntry;
  users: UserEntry;
  contracts: ContractEntry;
  shifts: ShiftEntry;
}

export interface Located<T> {
  path: string;
  entry: T;
}

/**
 * The document's entries by section: those to upsert, the refs to remove, and the refs of entries
 * too malformed to use (so references to them are not reported a second time).
 */
export type ReadDocument = { [S in Section]: { upserts: Located<EntryTypes[S]>[]; deletions: Located<{ ref: string }>[]; malformed: Set<string> } };

/** An import document as read: its entries and the problems of shape found (at most MAX_PROBLEMS). */
export interface ReadImport {
  doc: ReadDocument;
  errors: FieldError[];
}

/**
 * Problems listed at most (with the first found): a 64 MiB document of empty entries has a hundred
 * million, more than any reader can use or any answer can carry. Reading stops at this many.
 */
export const MAX_PROBLEMS = 1000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function emptyDocument(): ReadDocument {
  return Object.fromEntries(SECTIONS.map((section) => [section, { upserts: [], deletions: [], malformed: new Set<string>() }])) as unknown as ReadDocument;
}

/** A path or message longer than this (a property name of megabytes) is cut, marked with "…". */
const MAX_PROBLEM_TEXT = 300;

const cut = (text: string) => (text.length > MAX_PROBLEM_TEXT ? `${text.slice(0, MAX_PROBLEM_TEXT)}…` : text);

/** At most MAX_PROBLEMS problems, none longer than an answer should carry. */
export function boundProblems(errors: readonly FieldError[]): FieldError[] {
  return errors.slice(0, MAX_PROBLEMS).map(({ path, message }) => ({ path: cut(path), message: cut(message) }));
}

const isRef = (ref: unknown): ref is string => typeof ref === 'string' && ref !== '' && ref.length <= 100;

function readSection(section: Section, items: unknown[], read: ReadDocument, errors: FieldError[]): void {
  const firstPathOfRef = new Map<string, string>();
  for (let index = 0; index < items.length && errors.length < MAX_PROBLEMS; index += 1) {
    const item = items[index];
    const path = `/${section}/${index}`;
    if (!isObject(item)) {
      errors.push({ path, message: 'must be an object' });
      continue;
    }
    const ref = item.ref;
    if (isRef(ref)) {
      const first = firstPathOfRef.get(ref);
      if (first) errors.push({ path: `${path}/ref`, message: `repeats the ref "${ref}" of ${first}` });
      else firstPathOfRef.set(ref, path);
    }
    if (item.deleted === true) {
      if (!isRef(ref)) errors.push({ path: `${path}/ref`, message: 'must be a string of 1 to 100 characters' });
      else read[section].deletions.push({ path, entry: { ref } });
      continue;
    }
    const problems = schemaErrors(ENTRY_SCHEMAS[section], item, path);
    if (problems.length > 0) {
      // One entry with millions of unknown fields: no more than can be listed.
      errors.push(...problems.slice(0, MAX_PROBLEMS - errors.length));
      if (typeof ref === 'string') read[section].malformed.add(ref);
    } else (read[section].upserts as Located<unknown>[]).push({ path, entry: item });
  }
}

/** The document's entries by section, every problem of shape in `errors` (reading stops at MAX_PROBLEMS). */
export function readDocument(document: unknown, errors: FieldError[]): ReadDocument {
  const read = emptyDocument();
  if (!isObject(document)) {
    errors.push({ path: '', message: 'must be a JSON object with the sections departments, positions, shiftTypes, contractTypes, users, contracts, shifts' });
    return read;
  }
  for (const key in document) {
    if (errors.length >= MAX_PROBLEMS) break;
    if (!(SECTIONS as readonly string[]).includes(key)) errors.push({ path: `/${key}`, message: 'is not a known section' });
  }
  for (const section of SECTIONS) {
    const items = document[section];
    if (items === undefined || errors.length >= MAX_PROBLEMS) continue;
    if (!Array.isArray(items)) errors.push({ path: `/${section}`, message: 'must be an array' });
    else readSection(section, items as unknown[], read, errors);
  }
  return read;
}
