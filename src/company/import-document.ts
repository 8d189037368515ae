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

export function emptyDocument(): ReadDocument {
  return Object.fromEntries(SECTIONS.map((section) => [section, { upserts: [], deletions: [], malformed: new Set<string>() }])) as unknown as ReadDocument;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isRef = (ref: unknown): ref is string => typeof ref === 'string' && ref !== '' && ref.length <= 100;

function* readSection(section: Section, items: unknown[], read: ReadDocument): Generator<FieldError> {
  const firstPathOfRef = new Map<string, string>();
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    const path = `/${section}/${index}`;
    if (!isObject(item)) {
      yield { path, message: 'must be an object' };
      continue;
    }
    const ref = item.ref;
    if (isRef(ref)) {
      const first = firstPathOfRef.get(ref);
      if (first) yield { path: `${path}/ref`, message: `repeats the ref "${ref}" of ${first}` };
      else firstPathOfRef.set(ref, path);
    }
    if (item.deleted === true) {
      if (!isRef(ref)) yield { path: `${path}/ref`, message: 'must be a string of 1 to 100 characters' };
      else read[section].deletions.push({ path, entry: { ref } });
      continue;
    }
    const problems = schemaErrors(ENTRY_SCHEMAS[section], item, path);
    if (problems.length > 0) {
      yield* problems;
      if (typeof ref === 'string') read[section].malformed.add(ref);
    } else (read[section].upserts as Located<unknown>[]).push({ path, entry: item });
  }
}

/**
 * Reads `document` into `read` (its entries by section), yielding every problem of shape in document
 * order. Lazily: a document of a million empty entries has millions of problems, which a caller may
 * count first and list later (import-job-worker.ts) without holding them all at once.
 */
export function* readDocument(document: unknown, read: ReadDocument): Generator<FieldError> {
  if (!isObject(document)) {
    yield { path: '', message: 'must be a JSON object with the sections departments, positions, shiftTypes, contractTypes, users, contracts, shifts' };
    return;
  }
  for (const key in document) {
    if (!(SECTIONS as readonly string[]).includes(key)) yield { path: `/${key}`, message: 'is not a known section' };
  }
  for (const section of SECTIONS) {
    const items = document[section];
    if (items === undefined) continue;
    if (!Array.isArray(items)) yield { path: `/${section}`, message: 'must be an array' };
    else yield* readSection(section, items as unknown[], read);
  }
}

/** Whether `problem` is the document's own (not an object at all): nothing in it is worth cross-checking. */
export const isRootProblem = (problem: FieldError) => problem.path === '';
