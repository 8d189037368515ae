// One batch of inbound figures (contract: secured company API), all or nothing: every item is validated first and all
// problems are reported together; only a clean batch is written, in one transaction, with set-based
// statements (multi-row upserts that write only what changed) whatever the batch size.
import { sqliteHandleOf, type Db } from '../platform/db/database.ts';
import { badRequest, type FieldError } from '../platform/errors.ts';
import { doubleToHundredths, toHundredths } from './decimal.ts';
import { keptNumberText } from './exact-json.ts';
import { periodReader } from './periods.ts';
import type { InboundStream } from './tables.ts';
import { durably } from '../platform/db/durability.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { figureKey, storeFigures, type FigureDraft, type WrittenFigure } from './stored-figures.ts';
import type { BatchOutcome as BatchOutcomeSchema, FigureRow } from './figures.ts';
import type { Static, TSchema } from 'typebox';
import { schemaChecker } from '../platform/validation.ts';
import { prepareChanges, type NewChange } from '../changes/change-log.ts';
import { announceChanges } from '../changes/notifier.ts';
import { companyTimezone } from '../tenancy/companies.ts';

export const MAX_BATCH_ITEMS = 5000;
/** Departments looked up per statement; items checked per turn of the event loop. */
const CHUNK = 1000;

export interface BatchItem {
  departmentId: string;
  date?: string | null;
  week?: string | null;
}

export interface FigureValues {
  kind: string;
  category: string;
  amountMinor: number;
  hoursCenti: number | null;
}

/** What sets one stream (revenue, wage budget) apart: its own fields and how they are checked. */
export interface StreamRules<Item extends BatchItem> {
  stream: InboundStream;
  /** One item's fields, types and formats: checked first, item by item. */
  input: TSchema;
  /** What the change log calls a stored item of this stream. */
  resourceType: 'revenue_item' | 'wage_budget_item';
  /** A stored item as the stream's read-back shows it (also the data of its change-log entry). */
  present(row: FigureRow, timezone: string): unknown;
  /** Names the fields of the upsert key, for the message about duplicates. */
  keyFields: string;
  values(item: Item, path: string, errors: FieldError[]): FigureValues | undefined;
}

/** What a stored batch did, declared once (validates, serialises and types the answer). */
export type BatchOutcome = Static<typeof BatchOutcomeSchema>;

export function batchTooLarge(count: number): never {
  throw badRequest('batch_too_large', `The batch has ${count} items; at most ${MAX_BATCH_ITEMS} are allowed. Split it.`, [
    { path: '/items', message: `must have at most ${MAX_BATCH_ITEMS} items` },
  ]);
}

/** Reads `holder[field]` in hundredths from the number's JSON text; undefined (and an error) when bad. */
export function readHundredths(holder: object, field: string, value: number, path: string, errors: FieldError[], options: { min?: number } = {}): number | undefined {
  const kept = keptNumberText(holder, field);
  const result = kept === undefined ? doubleToHundredths(value) : toHundredths(kept);
  if (!result.ok) {
    errors.push({ path: `${path}/${field}`, message: result.message });
    return undefined;
  }
  if (options.min !== undefined && result.value < options.min * 100) {
    errors.push({ path: `${path}/${field}`, message: `must be at least ${options.min}` });
    return undefined;
  }
  return result.value;
}

/** The departments named by the items (by those that name one as a string) that are not the company's. */
async function unknownDepartments(db: Db, companyId: string, items: readonly unknown[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (const item of items) {
    const id = (item as { departmentId?: unknown } | null)?.departmentId;
    if (typeof id === 'string') named.add(id);
  }
  const wanted = [...named];
  const known = new Set<string>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const rows = await db.selectFrom('departments').select('id').where('company_id', '=', companyId).where('id', 'in', wanted.slice(i, i + CHUNK)).execute();
    for (const row of rows) known.add(row.id);
  }
  return new Set(wanted.filter((id) => !known.has(id)));
}

interface CheckedBatch {
  drafts: FigureDraft[];
  /** Every problem, in item order. */
  errors: FieldError[];
  /** How many items have a problem. */
  badItems: number;
  /** Whether some item has a field of the wrong type or format (the schema's findings). */
  malformed: boolean;
}

/**
 * The rule checks of one batch's well-shaped items, in item order: the department is the company's,
 * exactly one valid period, the stream's values, no key twice. Gives the item's draft, or undefined
 * with its problems added to `errors`.
 */
function ruleChecker<Item extends BatchItem>(rules: StreamRules<Item>, unknownDepartmentIds: Set<string>) {
  /** The first item of each key so far. */
  const seen = new Map<string, number>();
  const itemPeriod = periodReader();
  return (item: Item, index: number, path: string, errors: FieldError[]): FigureDraft | undefined => {
    const before = errors.length;
    if (unknownDepartmentIds.has(item.departmentId)) errors.push({ path: `${path}/departmentId`, message: 'is not a department of this company' });
    const period = itemPeriod(item, path, errors);
    const values = rules.values(item, path, errors);
    if (!period || !values) return undefined;
    const key = figureKey(item.departmentId, period.key, values.kind, values.category);
    const first = seen.get(key);
    if (first !== undefined) errors.push({ path, message: `has the same ${rules.keyFields} as /items/${first}` });
    else seen.set(key, index);
    if (errors.length > before) return undefined;
    return { departmentId: item.departmentId, period, key, kind: values.kind, category: values.category, amountMinor: values.amountMinor, hoursCenti: values.hoursCenti };
  };
}

/**
 * Every problem of the batch, in item order; the drafts are only meaningful when there are none.
 * An item of the wrong shape (a field of the wrong type) gets the schema's findings and is left out
 * of the rule checks; the other items' broken rules are still worth reporting in the same answer.
 */
async function validateBatch<Item extends BatchItem>(db: Db, companyId: string, rules: StreamRules<Item>, items: readonly unknown[]): Promise<CheckedBatch> {
  const checked: CheckedBatch = { drafts: [], errors: [], badItems: 0, malformed: false };
  const { errors } = checked;
  const shapeErrors = schemaChecker(rules.input);
  const ruleErrors = ruleChecker(rules, await unknownDepartments(db, companyId, items));
  for (let index = 0; index < items.length; index += 1) {
    // A turn of the event loop every CHUNK items: a whole batch checked at once held it ~20 ms.
    if (index > 0 && index % CHUNK === 0) await nextTurn();
    const path = `/items/${index}`;
    const before = errors.length;
    const misshapen = shapeErrors(items[index], path);
    if (misshapen.length > 0) {
      errors.push(...misshapen);
      checked.malformed = true;
    } else {
      const draft = ruleErrors(items[index] as Item, index, path, errors);
      if (draft) checked.drafts.push(draft);
    }
    if (errors.length > before) checked.badItems += 1;
  }
  return checked;
}

const byKey = (a: FigureDraft, b: FigureDraft) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * Validates and stores a batch (items as the body holds them, of any shape); throws a 400 listing
 * every bad item, storing nothing, when any is bad: `validation_failed` when some item has a field of
 * the wrong type or format, else `invalid_batch` (broken rules only).
 */
export async function ingestBatch<Item extends BatchItem>(db: Db, companyId: string, rules: StreamRules<Item>, items: readonly unknown[], options: { now?: number } = {}): Promise<BatchOutcome> {
  if (items.length > MAX_BATCH_ITEMS) batchTooLarge(items.length);
  // The zone the changes are written in, read while the items are checked (PostgreSQL: another connection).
  const [{ drafts, errors, badItems, malformed }, timezone] = await Promise.all([validateBatch(db, companyId, rules, items), companyTimezone(db, companyId)]);
  if (errors.length > 0) throw badRequest(malformed ? 'validation_failed' : 'invalid_batch', `${badItems} of ${items.length} items are invalid; nothing was stored.`, errors);
  // Written in key order, so two concurrent batches lock shared rows in the same order (no deadlock).
  drafts.sort(byKey);
  await nextTurn();
  const now = options.now ?? Date.now();
  const onPostgres = sqliteHandleOf(db) === undefined;
  const outcome = await durably(db, (connection) => connection.transaction().execute(async (trx) => {
    const time = { at: now, timezone };
    // The change-log statement is built while PostgreSQL inserts a batch of new figures (storeFigures).
    const { written, prepared: logChanges } = await storeFigures(trx, onPostgres, companyId, rules.stream, drafts, now, (figures) => prepareChanges(trx, companyId, figureChanges(rules, figures, timezone), time));
    await logChanges();
    const created = written.filter((figure) => figure.created).length;
    const updated = written.length - created;
    return { received: items.length, created, updated, unchanged: items.length - created - updated };
  }));
  if (outcome.created + outcome.updated > 0) announceChanges(db, companyId);
  return outcome;
}

/** One change per created or updated figure, for the transaction that wrote them; unchanged ones log nothing. */
function figureChanges<Item extends BatchItem>(rules: StreamRules<Item>, written: WrittenFigure[], timezone: string): NewChange[] {
  return written.map(({ row, created }) => ({ resourceType: rules.resourceType, action: created ? 'created' : 'updated', resourceId: row.id, data: rules.present(row, timezone) }));
}
