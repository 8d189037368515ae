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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function emptyDocument(): ReadDocument {
  return Object.fromEntries(SECTIONS.map((section) => [section, { upserts: [], deletions: [], malformed: new Set<string>() }])) as unknown as ReadDocument;
}

export function readDocument(document: unknown, errors: FieldError[]): ReadDocument {
  const read = emptyDocument();
  if (!isObject(document)) {
    errors.push({ path: '', message: 'must be a JSON object with the sections departments, positions, shiftTypes, contractTypes, users, contracts, shifts' });
    return read;
  }
  for (const key of Object.keys(document)) {
    if (!(SECTIONS as readonly string[]).includes(key)) errors.push({ path: `/${key}`, message: 'is not a known section' });
  }
  for (const section of SECTIONS) {
    const items = document[section];
    if (items === undefined) continue;
    if (!Array.isArray(items)) {
      errors.push({ path: `/${section}`, message: 'must be an array' });
      continue;
    }
    const firstPathOfRef = new Map<string, string>();
    items.forEach((item: unknown, index) => {
      const path = `/${section}/${index}`;
      if (!isObject(item)) {
        errors.push({ path, message: 'must be an object' });
        return;
      }
      const ref = item.ref;
      if (typeof ref === 'string' && ref !== '') {
        const first = firstPathOfRef.get(ref);
        if (first) errors.push({ path: `${path}/ref`, message: `repeats the ref "${ref}" of ${first}` });
        else firstPathOfRef.set(ref, path);
      }
      if (item.deleted === true) {
        if (typeof ref !== 'string' || ref === '' || ref.length > 100) errors.push({ path: `${path}/ref`, message: 'must be a string of 1 to 100 characters' });
        else read[section].deletions.push({ path, entry: { ref } });
        return;
      }
      const problems = schemaErrors(ENTRY_SCHEMAS[section], item, path);
      if (problems.length > 0) {
        errors.push(...problems);
        if (typeof ref === 'string') read[section].malformed.add(ref);
      } else (read[section].upserts as Located<unknown>[]).push({ path, entry: item });
    });
  }
  return read;
}
