// Reads an import document's shape: every entry checked against its section's schema on its own, so
// each problem is reported at its exact JSON path (`/shifts/3/start`), and every problem at once. An
// entry with problems of shape is kept with its broken fields named, so planning still checks the
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
 * An entry to check. One that is `wellFormed` (no problem of shape) is written. One with problems is
 * never written, but it is still checked wherever its fields are well-formed: a string
 * `departmentRef` beside a bad `start` is looked up (fieldsFit).
 */
export interface Entry<T> extends Located<T> {
  wellFormed: boolean;
  /** Its schema fields with a problem of shape; an unknown property is a problem of none of them. */
  brokenFields: ReadonlySet<string>;
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

/** Each section's fields in its schema's order, the order an entry's problems are listed in. */
const FIELDS = Object.fromEntries(SECTIONS.map((section) => [section, Object.keys(ENTRY_SCHEMAS[section].properties)])) as Record<Section, string[]>;

/** Shared by every well-formed entry: a document may hold hundreds of thousands. */
const NO_FIELDS: ReadonlySet<string> = new Set();

/**
 * The position in FIELDS of the field of `section` that a problem's `path` is in, read from `start`
 * (just past its entry's path): `wage`'s for `/contracts/2/wage/amount`; -1 for an unknown property
 * or the entry itself. The names are compared in place, not cut out of the path and looked up: this
 * runs for every problem of shape, twice (import-job-worker.ts), and there may be tens of millions.
 * An unknown property's name is not escaped in a path: one named `ref/x` counts as `ref`, here as
 * for anyone who reads the path.
 */
function fieldAt(section: Section, path: string, start: number): number {
  const fields = FIELDS[section];
  for (let position = 0; position < fields.length; position += 1) {
    const field = fields[position]!;
    const end = start + field.length;
    if (path.startsWith(field, start) && (path.length === end || path[end] === '/')) return position;
  }
  return -1;
}

const EVERY_FIELD_FITS = () => true;

/** Whether fields of an entry (names, or paths into them: `wage/amount`) are free of problems of shape, by its `brokenFields`. */
export function fieldsFit(brokenFields: ReadonlySet<string>): (...fields: string[]) => boolean {
  if (brokenFields.size === 0) return EVERY_FIELD_FITS;
  return (...fields) => fields.every((field) => !brokenFields.has(field.split('/', 1)[0]!));
}

/** The schema fields of the entry at `entryPath` that its problems of shape are in. */
function brokenFieldsOf(section: Section, problems: FieldError[], entryPath: string): Set<string> {
  const broken = new Set<string>();
  for (const problem of problems) {
    const position = fieldAt(section, problem.path, entryPath.length + 1);
    if (position >= 0) broken.add(FIELDS[section][position]!);
  }
  return broken;
}

/**
 * Where a problem at `path` stands among those of the entry of `section` whose path is `entryLength`
 * long: the entry itself first, then its fields in schema order, unknown properties last.
 */
function fieldRank(section: Section, path: string, entryLength: number): number {
  if (path.length <= entryLength) return 0;
  const position = fieldAt(section, path, entryLength + 1);
  return position < 0 ? FIELDS[section].length + 1 : position + 1;
}

/**
 * The problems of the entry at `entryPath` by field (fieldRank), each field's in the order found.
 * Ajv reports missing fields before the others, so a list may be out of order; most are not, and are
 * returned as they are, without building anything. The sort is stable: it keeps one field's problems
 * in their order.
 */
function inFieldOrder(section: Section, problems: FieldError[], entryPath: string): FieldError[] {
  const rank = (problem: FieldError) => fieldRank(section, problem.path, entryPath.length);
  let previous = 0;
  for (const problem of problems) {
    const current = rank(problem);
    if (current < previous) {
      const ranked = problems.map((p) => ({ problem: p, rank: rank(p) }));
      return ranked.sort((a, b) => a.rank - b.rank).map((item) => item.problem);
    }
    previous = current;
  }
  return problems;
}

/** Where a problem stands in a rejection's list: by section (in SECTIONS order), entry, then field (fieldRank). */
interface Place {
  /** -1 for the document itself and for unknown sections: they come first. */
  section: number;
  /** -1 for the section itself (one that is not an array). */
  entry: number;
  field: number;
}

const BEFORE_EVERY_SECTION: Place = { section: -1, entry: -1, field: 0 };

/** An entry's index as its path writes it. */
const ENTRY_INDEX = /^(0|[1-9][0-9]*)$/;

/** The Place of a problem at `path` (`/shifts/3/start`). */
function placeOf(path: string): Place {
  const [, name = '', index] = path.split('/', 3);
  const section = SECTIONS.indexOf(name as Section);
  if (section < 0) return BEFORE_EVERY_SECTION;
  if (index === undefined) return { section, entry: -1, field: 0 };
  // After a section's name comes an entry's index, unless the path is an unknown section's whose name
  // holds a '/' (`{"shifts/x": …}`). The path cannot always tell: `{"shifts/3": …}` reads as an entry.
  if (!ENTRY_INDEX.test(index)) return BEFORE_EVERY_SECTION;
  return { section, entry: Number(index), field: fieldRank(name as Section, path, name.length + index.length + 2) };
}

function comparePlaces(a: Place, b: Place): number {
  return a.section - b.section || a.entry - b.entry || a.field - b.field;
}

/**
 * A rejected document's problems as they are listed: by section, entry, then field. `shape` is
 * readDocument's, in that order already and read lazily (there may be millions); `planned` the
 * planner's, sorted and merged in: each goes out just before the first problem of shape that
 * stands after it.
 */
export function* inDocumentOrder(shape: Iterable<FieldError>, planned: FieldError[]): Generator<FieldError> {
  // Array.prototype.sort is stable: a field's planned problems keep the order they were found in.
  const waiting = planned.map((problem) => ({ problem, place: placeOf(problem.path) })).sort((a, b) => comparePlaces(a.place, b.place));
  let next = 0;
  function* waitingBefore(place: Place): Generator<FieldError> {
    for (; next < waiting.length && comparePlaces(waiting[next]!.place, place) < 0; next += 1) yield waiting[next]!.problem;
  }
  for (const problem of shape) {
    // Once every planned problem is out, the rest of shape needs no place (placeOf splits each path).
    if (next < waiting.length) yield* waitingBefore(placeOf(problem.path));
    yield problem;
  }
  for (const { problem } of waiting.slice(next)) yield problem;
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
      entries.push({ path, entry: item, wellFormed: true, brokenFields: NO_FIELDS });
      continue;
    }
    yield* inFieldOrder(section, problems, path);
    if (typeof ref === 'string') read[section].malformed.add(ref);
    const entry = withProblems(section, item, problems, path);
    if (entry) entries.push(entry);
  }
}

/**
 * The entry at `path` with `problems` of shape, to check its sound fields; undefined when it has none
 * (millions of `{}` are not kept: nothing of them could be checked).
 */
function withProblems(section: Section, item: Record<string, unknown>, problems: FieldError[], path: string): Entry<unknown> | undefined {
  const has = (field: string) => Object.hasOwn(item, field);
  if (!FIELDS[section].some(has)) return undefined;
  const brokenFields = brokenFieldsOf(section, problems, path);
  const sound = FIELDS[section].some((field) => has(field) && !brokenFields.has(field));
  return sound ? { path, entry: item, wellFormed: false, brokenFields } : undefined;
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
