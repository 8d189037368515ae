// Company data in (contract: operator side): one document, validated whole, applied in one transaction, upserted
// by the caller's refs. The CLI (`wfs import`) and the operator API come here through a worker thread
// (import-job.ts), the demo seed and tests directly (importCompanyData). A document may hold hundreds
// of thousands of entries (the operator API takes 64 MiB): loading the stored rows, planning, writing
// and logging the changes run in statements of a few thousand parameters, in slices
// (platform/cooperative.ts) so that run on the event loop it turns every few milliseconds; the one
// transaction keeps the import all-or-nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import type { Database } from '../platform/db/schema.ts';
import { badRequest, notFound, type FieldError } from '../platform/errors.ts';
import { breaksFrame, emptyDocument, fieldsFit, inDocumentOrder, readDocument, type ReadDocument } from './import-document.ts';
import { eachPaced, pacer, type Pace } from '../platform/cooperative.ts';
import { planImport, TABLE_OF, type CompanyRows, type ImportPlan, type PlanContext } from './import-plan.ts';
import { SECTIONS, type Section } from './import-schema.ts';
import { IMPORT_SETTLE_MS } from '../tenancy/company-cache.ts';
import { bumpDataVersion, companySettings } from '../tenancy/companies.ts';
import { importChanges } from './import-changes.ts';
import { recordChanges } from '../changes/change-log.ts';
import { announceChanges } from '../changes/notifier.ts';

export { ImportDocument, ImportResult } from './import-schema.ts';

export type ImportCounts = Record<Section, { created: number; updated: number; deleted: number }>;

// Bound parameters per statement, far under SQLite's 32,766 and PostgreSQL's 65,535: building and
// running a statement of this many takes a few milliseconds.
const MAX_PARAMETERS = 4_000;
const IN_LIST_CHUNK = 1_000;
/** Stored rows read per query: a big company's are read page by page, not in one synchronous result. */
const LOAD_PAGE = 2_000;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

// The seven tables differ in columns; loading and writing treat them alike, so they see them untyped.
type AnyTables = Kysely<Record<string, Record<string, unknown>>>;

async function loadTable(trx: Transaction<Database>, table: string, companyId: string, pace: Pace): Promise<Array<Record<string, unknown>>> {
  const db = trx as unknown as AnyTables;
  const rows: Array<Record<string, unknown>> = [];
  // By (company_id, ref), the unique index: each page starts after the last ref of the one before.
  for (let after = ''; ;) {
    const page = await db.selectFrom(table).selectAll().where('company_id', '=', companyId).where('ref', '>', after).orderBy('ref').limit(LOAD_PAGE).execute();
    for (const row of page) rows.push(row);
    await pace();
    if (page.length < LOAD_PAGE) return rows;
    after = page[page.length - 1]?.ref as string;
  }
}

async function loadRows(trx: Transaction<Database>, companyId: string, pace: Pace): Promise<CompanyRows> {
  const entries = [];
  // One query at a time: a transaction holds a single connection.
  for (const section of SECTIONS) entries.push([section, await loadTable(trx, TABLE_OF[section], companyId, pace)] as const);
  return Object.fromEntries(entries) as unknown as CompanyRows;
}

/** Badge ids of the document that employees of the organisation's other companies already hold. */
async function badgesElsewhere(trx: Transaction<Database>, organisationId: string, companyId: string, doc: ReadDocument, pace: Pace): Promise<Set<string>> {
  const badges = new Set<string>();
  await eachPaced(doc.users.entries, pace, ({ entry, brokenFields }) => entry.badgeId && fieldsFit(brokenFields)('badgeId') && badges.add(entry.badgeId));
  const taken = new Set<string>();
  for (const batch of chunks([...badges], IN_LIST_CHUNK)) {
    const rows = await trx
      .selectFrom('employees')
      .select('badge_id')
      .where('organisation_id', '=', organisationId)
      .where('badge_id', 'in', batch)
      .where('company_id', '<>', companyId)
      .execute();
    for (const row of rows) if (row.badge_id) taken.add(row.badge_id);
    await pace();
  }
  return taken;
}

async function upsertRows(trx: Transaction<Database>, table: string, rows: Array<Record<string, unknown>>, pace: Pace): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const updatable = columns.filter((c) => c !== 'id' && c !== 'company_id' && c !== 'ref');
  const db = trx as unknown as AnyTables;
  for (const batch of chunks(rows, Math.floor(MAX_PARAMETERS / columns.length))) {
    await db
      .insertInto(table)
      .values(batch)
      .onConflict((oc) => oc.columns(['company_id', 'ref']).doUpdateSet((eb) => Object.fromEntries(updatable.map((c) => [c, eb.ref(`excluded.${c}`)]))))
      .execute();
    await pace();
  }
}

async function deleteRows(trx: Transaction<Database>, table: string, companyId: string, ids: string[], pace: Pace): Promise<void> {
  const db = trx as unknown as AnyTables;
  for (const batch of chunks(ids, IN_LIST_CHUNK)) {
    await db.deleteFrom(table).where('company_id', '=', companyId).where('id', 'in', batch).execute();
    await pace();
  }
}

async function applyPlan(trx: Transaction<Database>, companyId: string, plan: ImportPlan, pace: Pace): Promise<void> {
  // Dependants go first; a removed user's badge is free before anyone else takes it.
  for (const section of ['shifts', 'contracts', 'users'] as const) await deleteRows(trx, TABLE_OF[section], companyId, plan[section].deleteIds, pace);
  for (const batch of chunks(plan.badgeMoves, IN_LIST_CHUNK)) {
    await trx.updateTable('employees').set({ badge_id: null }).where('company_id', '=', companyId).where('id', 'in', batch).execute();
    await pace();
  }
  for (const section of SECTIONS) await upsertRows(trx, TABLE_OF[section], plan[section].upserts as unknown as Array<Record<string, unknown>>, pace);
  for (const section of ['positions', 'departments', 'shiftTypes', 'contractTypes'] as const) await deleteRows(trx, TABLE_OF[section], companyId, plan[section].deleteIds, pace);
}

function counts(plan: ImportPlan): ImportCounts {
  return Object.fromEntries(SECTIONS.map((s) => [s, { created: plan[s].created, updated: plan[s].updated, deleted: plan[s].deleteIds.length }])) as ImportCounts;
}

/** Thrown inside the import's transaction to roll it back: the document has problems. */
class Rejected extends Error {
  readonly problems: FieldError[];

  constructor(problems: FieldError[]) {
    super('The import document has problems.');
    this.problems = problems;
  }
}

/** What planning and writing a read document came to: its counts (committed), or the problems found in planning (nothing written). */
export type WriteOutcome = { counts: ImportCounts } | { problems: FieldError[] };

/**
 * Plans `doc` against the company's stored rows and writes it, in one transaction on `db`. `flawed`:
 * the document already has problems of shape, so it is planned only to find the rest (those of its
 * malformed entries' sound fields too), never written.
 * The caller announces the change (announceImport) once this has returned.
 */
export async function planAndWrite(db: Db, companyId: string, doc: ReadDocument, flawed: boolean, now: number): Promise<WriteOutcome> {
  const pace = pacer();
  try {
    return { counts: await db.transaction().execute((trx) => writePlanned(trx, companyId, doc, flawed, now, pace)) };
  } catch (error) {
    if (error instanceof Rejected) return { problems: error.problems };
    throw error;
  }
}

async function writePlanned(trx: Transaction<Database>, companyId: string, doc: ReadDocument, flawed: boolean, now: number, pace: Pace): Promise<ImportCounts> {
  const company = await companySettings(trx, companyId);
  if (!company) throw notFound(`No company ${companyId}.`, 'company_not_found');
  const ctx: PlanContext = {
    companyId,
    organisationId: company.organisationId,
    timezone: company.timezone,
    currency: company.currency,
    now,
    badgesElsewhere: await badgesElsewhere(trx, company.organisationId, companyId, doc, pace),
  };
  const rows = await loadRows(trx, companyId, pace);
  const problems: FieldError[] = [];
  const plan = await planImport(doc, rows, ctx, problems, pace);
  if (flawed || problems.length > 0) throw new Rejected(problems);
  await applyPlan(trx, companyId, plan, pace);
  await recordChanges(trx, companyId, await importChanges(plan, rows, company.timezone, pace), { at: now, timezone: company.timezone });
  const result = counts(plan);
  if (changed(result)) await bumpDataVersion(trx, companyId, now);
  return result;
}

/** After an import has committed: tells the listeners of the change log, and lets stale company records expire. */
export async function announceImport(db: Db, companyId: string, result: ImportCounts): Promise<void> {
  if (!changed(result)) return;
  announceChanges(db, companyId);
  // Let every instance's company record from before the commit expire (see tenancy/company-cache.ts), so
  // the change is served the moment this returns.
  await sleep(IMPORT_SETTLE_MS);
}

/**
 * Validates `document` whole (400 `invalid_import` listing every problem, nothing written) and
 * applies it in one transaction, here on the event loop: for documents built in this process (the
 * demo, tests). A body from outside is imported off the loop by importInWorker (import-job.ts).
 * Re-importing the same document changes nothing.
 */
export async function importCompanyData(db: Db, companyId: string, document: unknown, now = Date.now()): Promise<ImportCounts> {
  const doc = emptyDocument();
  const problems = [...readDocument(document, doc)];
  if (problems.some(breaksFrame)) throw invalidImport(problems);
  const outcome = await planAndWrite(db, companyId, doc, problems.length > 0, now);
  if ('problems' in outcome) throw invalidImport([...inDocumentOrder(problems, outcome.problems)]);
  await announceImport(db, companyId, outcome.counts);
  return outcome.counts;
}

function changed(result: ImportCounts): boolean {
  return Object.values(result).some((c) => c.created + c.updated + c.deleted > 0);
}

/** The detail of a rejected import that has `count` problems. */
export function rejectionDetail(count: number): string {
  return `The import document has ${count} ${count === 1 ? 'problem' : 'problems'}; nothing was imported.`;
}

function invalidImport(problems: FieldError[]): Error {
  return badRequest('invalid_import', rejectionDetail(problems.length), problems);
}
