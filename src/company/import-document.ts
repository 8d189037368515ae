// Reads an import document's shape: every entry checked against its section's schema on its own, so
// each problem is reported at its exact JSON path (`/shifts/3/start`), and every problem at once. An
// entry with problems of shape is kept with its broken fields marked, so planning still checks the
// rest of it (import-plan.ts); a rejection lists all of them by section, entry, then field.
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
 * An entry to check: `broken` holds its fields with a problem of shape, a bit per property of its
 * section's schema and one for unknown properties (fieldsFit reads it). One with none (0) is written;
 * one with some is still checked wherever its other fields are well-formed (a string `departmentRef`
 * beside a bad `start` is looked up), and never written.
 */
export interface Entry<T> extends Located<T> {
  broken: number;
}

/**
 * The document's entries by section, in document order: those to check (and to upsert, when well-formed),
 * the refs to remove, and the refs of entries with problems of shape (so references to them are not
 * reported a second time).
 */
export type ReadDocument = { [S in Section]: { entries: Entry<EntryTypes[S]>[]; deletions: Located<{ ref: string }>[]; malformed: Set<string> } };

export function emptyDocument(): ReadDocument {
  return Object.fromEntries(SECTIONS.map((section) => [section, { entries: [], deletions: [], malformed: new Set<string>() }])) as unknown as ReadDocument;
}

/** Each section's fields in its schema's order: the order of an entry's problems, and the bits of `broken`. */
const FIELDS = Object.fromEntries(SECTIONS.map((section) => [section, Object.keys(ENTRY_SCHEMAS[section].properties)])) as Record<Section, string[]>;

/**
 * The index among `section`'s fields of the one `path` leads into from `offset` (`wage/amount` from 0:
 * wage's); -1 when it is none of them. Without slicing: it runs for every problem of shape.
 */
function fieldAt(section: Section, path: string, offset: number): number {
  const fields = FIELDS[section];
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index] ?? '';
    const end = offset + field.length;
    if (path.startsWith(field, offset) && (path.length === end || path[end] === '/')) return index;
  }
  return -1;
}

const ALL_FIT = () => true;

/** Whether fields of an entry (names, or paths in them) are free of problems of shape, by its `broken` bits. */
export function fieldsFit(section: Section, broken: number): (...fields: string[]) => boolean {
  if (broken === 0) return ALL_FIT;
  return (...fields) => fields.every((field) => (broken & (1 << fieldAt(section, field, 0))) === 0);
}

/** The bits of the fields of `section` that `problems` of the entry at `path` are about; unknown fields share the bit after them. */
function brokenFields(section: Section, problems: FieldError[], path: string): number {
  let broken = 0;
  for (const problem of problems) {
    const index = fieldAt(section, problem.path, path.length + 1);
    broken |= 1 << (index < 0 ? FIELDS[section].length : index);
  }
  return broken;
}

/** The bits of the fields of `section` that `item` has. */
function presentFields(section: Section, item: Record<string, unknown>): number {
  return FIELDS[section].reduce((bits, field, index) => (Object.hasOwn(item, field) ? bits | (1 << index) : bits), 0);
}

/**
 * Where a problem at `path` stands among those of the entry whose path is `offset` - 1 characters
 * long: the entry itself first, then its fields in schema order, unknown fields last.
 */
function fieldRank(section: Section, path: string, offset: number): number {
  if (path.length < offset) return 0;
  const index = fieldAt(section, path, offset);
  return index < 0 ? FIELDS[section].length + 1 : index + 1;
}

/** The problems of the entry at `path` by field (fieldRank), each field's in the order found: Ajv finds missing fields first. */
function inFieldOrder(section: Section, problems: FieldError[], path: string): FieldError[] {
  if (problems.length < 2) return problems;
  const rank = (problem: FieldError) => fieldRank(section, problem.path, path.length + 1);
  let previous = 0;
  for (const problem of problems) {
    const current = rank(problem);
    if (current < previous) return problems.map((p) => ({ problem: p, rank: rank(p) })).sort((a, b) => a.rank - b.rank).map((ranked) => ranked.problem);
    previous = current;
  }
  return problems;
}

/** A problem's place in a rejection's list, as one number: section (unknown sections first), entry, field (fieldRank). */
function problemKey(path: string): number {
  const [, name = '', index] = path.split('/', 3);
  const section = SECTIONS.indexOf(name as Section);
  const entry = index === undefined ? -1 : Number(index);
  const rank = section < 0 ? 0 : fieldRank(SECTIONS[section] as Section, path, name.length + (index?.length ?? 0) + 3);
  return ((section + 1) * 2 ** 27 + (entry + 1)) * 64 + rank;
}

/**
 * A rejected document's problems as they are listed: by section, entry, then field. `shape` is
 * readDocument's (already in that order, read lazily); `planned` the planner's, merged in.
 */
export function* inDocumentOrder(shape: Iterable<FieldError>, planned: FieldError[]): Generator<FieldError> {
  // Array.prototype.sort is stable: a field's planned problems keep the order they were found in.
  const sorted = planned.map((problem) => ({ problem, key: problemKey(problem.path) })).sort((a, b) => a.key - b.key);
  let next = 0;
  const plannedBefore = function* (key: number) {
    for (let item = sorted[next]; item && item.key < key; item = sorted[(next += 1)]) yield item.problem;
  };
  for (const problem of shape) {
    if (next < sorted.length) yield* plannedBefore(problemKey(problem.path));
    yield problem;
  }
  yield* plannedBefore(Infinity);
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
    const entries = read[section].entries as Entry<unknown>[];
    if (problems.length === 0) {
      entries.push({ path, entry: item, broken: 0 });
      continue;
    }
    yield* inFieldOrder(section, problems, path);
    if (typeof ref === 'string') read[section].malformed.add(ref);
    // An entry with no sound field left (millions of `{}`) is not kept: nothing of it could be checked.
    const present = presentFields(section, item);
    const broken = present === 0 ? 0 : brokenFields(section, problems, path);
    if ((present & ~broken) !== 0) entries.push({ path, entry: item, broken });
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

/**
 * Whether `problem` breaks the document's frame: it is not an object, or a section is not a list.
 * Its entries' shapes are still listed, but nothing is cross-checked: a ref into a section that is
 * not a list would be reported as missing.
 */
export const breaksFrame = (problem: FieldError) => problem.path === '' || (SECTIONS as readonly string[]).includes(problem.path.slice(1));
