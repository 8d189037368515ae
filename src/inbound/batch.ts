// One batch of inbound figures (CONTRACT §3), all or nothing: every item is validated first and all
// problems are reported together; only a clean batch is written, in one transaction, with set-based
// statements (one read of the existing rows, multi-row upserts) whatever the batch size.
import type { Transaction } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import type { Database } from '../platform/db/schema.ts';
import { badRequest, type FieldError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { toHundredths } from './decimal.ts';
import { numberText } from './exact-json.ts';
import { periodReader, type ItemPeriod } from './periods.ts';
import type { InboundStream } from './tables.ts';
import { durably } from '../platform/db/durability.ts';

export const MAX_BATCH_ITEMS = 5000;
/** Rows per multi-row statement: 15 columns × 1000 stays under SQLite's and PostgreSQL's parameter limits. */
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
  /** Names the fields of the upsert key, for the message about duplicates. */
  keyFields: string;
  values(item: Item, path: string, errors: FieldError[]): FigureValues | undefined;
}

export interface BatchOutcome {
  received: number;
  created: number;
  updated: number;
  unchanged: number;
}

interface Draft extends FigureValues {
  departmentId: string;
  period: ItemPeriod;
  /** The upsert key (figureKey). */
  key: string;
}

export function batchTooLarge(count: number): never {
  throw badRequest('batch_too_large', `The batch has ${count} items; at most ${MAX_BATCH_ITEMS} are allowed. Split it.`, [
    { path: '/items', message: `must have at most ${MAX_BATCH_ITEMS} items` },
  ]);
}

/** Reads `holder[field]` in hundredths from the number's JSON text; undefined (and an error) when bad. */
export function readHundredths(holder: object, field: string, value: number, path: string, errors: FieldError[], options: { min?: number } = {}): number | undefined {
  const result = toHundredths(numberText(holder, field, value));
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

function figureKey(departmentId: string, periodKey: string, kind: string, category: string): string {
  // Only the last part (category) is free text; the others never contain NUL, so no two keys collide.
  return `${departmentId}\u0000${periodKey}\u0000${kind}\u0000${category}`;
}

async function unknownDepartments(db: Db, companyId: string, items: BatchItem[]): Promise<Set<string>> {
  const wanted = [...new Set(items.map((item) => item.departmentId))];
  const known = new Set<string>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const rows = await db.selectFrom('departments').select('id').where('company_id', '=', companyId).where('id', 'in', wanted.slice(i, i + CHUNK)).execute();
    for (const row of rows) known.add(row.id);
  }
  return new Set(wanted.filter((id) => !known.has(id)));
}

function pathIndex(path: string): number {
  return Number(/^\/items\/(\d+)/.exec(path)?.[1] ?? -1);
}

/** Every problem of the batch, in item order; the drafts are only meaningful when there are none. */
async function validateBatch<Item extends BatchItem>(db: Db, companyId: string, rules: StreamRules<Item>, items: Item[]): Promise<{ drafts: Draft[]; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  const unknown = await unknownDepartments(db, companyId, items);
  const drafts: Draft[] = [];
  const seen = new Map<string, number>();
  const itemPeriod = periodReader();
  items.forEach((item, index) => {
    const path = `/items/${index}`;
    if (unknown.has(item.departmentId)) errors.push({ path: `${path}/departmentId`, message: 'is not a department of this company' });
    const period = itemPeriod(item, path, errors);
    const values = rules.values(item, path, errors);
    if (!period || !values) return;
    const key = figureKey(item.departmentId, period.key, values.kind, values.category);
    const first = seen.get(key);
    if (first !== undefined) errors.push({ path, message: `has the same ${rules.keyFields} as /items/${first}` });
    else seen.set(key, index);
    drafts.push({ departmentId: item.departmentId, period, key, ...values });
  });
  errors.sort((a, b) => pathIndex(a.path) - pathIndex(b.path));
  return { drafts, errors };
}

/**
 * The stored figures the batch could touch, by key. The query narrows on every key column whose
 * distinct values are few enough to list (they usually are: a batch spans few departments, kinds
 * and categories), so it reads about the batch's own rows, not everything else on those days.
 */
async function existingFigures(trx: Transaction<Database>, companyId: string, stream: InboundStream, drafts: Draft[]): Promise<Map<string, { amountMinor: number; hoursCenti: number | null }>> {
  const distinct = (pick: (draft: Draft) => string) => [...new Set(drafts.map(pick))];
  const listable = (values: string[]) => (values.length <= CHUNK ? values : undefined);
  const periodKeys = distinct((d) => d.period.key);
  const departmentIds = listable(distinct((d) => d.departmentId));
  const kinds = listable(distinct((d) => d.kind));
  const categories = listable(distinct((d) => d.category));
  const existing = new Map<string, { amountMinor: number; hoursCenti: number | null }>();
  for (let i = 0; i < periodKeys.length; i += CHUNK) {
    let query = trx
      .selectFrom('inbound_items')
      .select(['department_id', 'period_key', 'kind', 'category', 'amount_minor', 'hours_centi'])
      .where('company_id', '=', companyId)
      .where('stream', '=', stream)
      .where('period_key', 'in', periodKeys.slice(i, i + CHUNK));
    if (departmentIds) query = query.where('department_id', 'in', departmentIds);
    if (kinds) query = query.where('kind', 'in', kinds);
    if (categories) query = query.where('category', 'in', categories);
    for (const row of await query.execute()) {
      existing.set(figureKey(row.department_id, row.period_key, row.kind, row.category), { amountMinor: Number(row.amount_minor), hoursCenti: row.hours_centi === null ? null : Number(row.hours_centi) });
    }
  }
  return existing;
}

async function writeFigures(trx: Transaction<Database>, companyId: string, stream: InboundStream, drafts: Draft[], now: number): Promise<void> {
  for (let i = 0; i < drafts.length; i += CHUNK) {
    const rows = drafts.slice(i, i + CHUNK).map((d) => ({
      id: newId('fig'),
      company_id: companyId,
      stream,
      department_id: d.departmentId,
      date: d.period.date,
      week: d.period.week,
      period_key: d.period.key,
      period_start: d.period.start,
      period_end: d.period.end,
      kind: d.kind,
      category: d.category,
      amount_minor: d.amountMinor,
      hours_centi: d.hoursCenti,
      created_at: now,
      updated_at: now,
    }));
    // A row that appeared since the read (a concurrent batch) is updated, not duplicated.
    await trx
      .insertInto('inbound_items')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['company_id', 'stream', 'period_key', 'department_id', 'kind', 'category']).doUpdateSet((eb) => ({
          amount_minor: eb.ref('excluded.amount_minor'),
          hours_centi: eb.ref('excluded.hours_centi'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

/** Validates and stores a batch; throws a 400 listing every bad item, storing nothing, when any is bad. */
export async function ingestBatch<Item extends BatchItem>(db: Db, companyId: string, rules: StreamRules<Item>, items: Item[], now = Date.now()): Promise<BatchOutcome> {
  if (items.length > MAX_BATCH_ITEMS) batchTooLarge(items.length);
  const { drafts, errors } = await validateBatch(db, companyId, rules, items);
  if (errors.length > 0) {
    const bad = new Set(errors.map((e) => pathIndex(e.path))).size;
    throw badRequest('invalid_batch', `${bad} of ${items.length} items are invalid; nothing was stored.`, errors);
  }
  return durably(db, (connection) => connection.transaction().execute(async (trx) => {
    const existing = await existingFigures(trx, companyId, rules.stream, drafts);
    const changed: Draft[] = [];
    let created = 0;
    let updated = 0;
    for (const draft of drafts) {
      const current = existing.get(draft.key);
      if (current === undefined) created += 1;
      else if (current.amountMinor !== draft.amountMinor || current.hoursCenti !== draft.hoursCenti) updated += 1;
      else continue;
      changed.push(draft);
    }
    // Written in key order, so two concurrent batches lock shared rows in the same order (no deadlock).
    changed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    await writeFigures(trx, companyId, rules.stream, changed, now);
    return { received: items.length, created, updated, unchanged: items.length - created - updated };
  }));
}
