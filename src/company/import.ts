// Company data in (contract: operator side): one document, validated whole, applied in one transaction, upserted
// by the caller's refs. The CLI (`wfs import`), the operator API and the demo seed all come here.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import type { Database } from '../platform/db/schema.ts';
import { badRequest, notFound, type FieldError } from '../platform/errors.ts';
import { readDocument, type ReadDocument } from './import-document.ts';
import { planImport, TABLE_OF, type CompanyRows, type ImportPlan, type PlanContext } from './import-plan.ts';
import { SECTIONS, type Section } from './import-schema.ts';
import { IMPORT_SETTLE_MS } from '../tenancy/company-cache.ts';
import { bumpDataVersion, companySettings } from '../tenancy/companies.ts';
import { importChanges } from './import-changes.ts';
import { recordChanges } from '../changes/change-log.ts';
import { announceChanges } from '../changes/notifier.ts';

export { ImportDocument, ImportResult } from './import-schema.ts';

export type ImportCounts = Record<Section, { created: number; updated: number; deleted: number }>;

// Bound parameters per statement stay well under SQLite's 32,766 and PostgreSQL's 65,535.
const MAX_PARAMETERS = 20_000;
const IN_LIST_CHUNK = 1_000;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

// The seven tables differ in columns; loading and writing treat them alike, so they see them untyped.
type AnyTables = Kysely<Record<string, Record<string, unknown>>>;

async function loadRows(trx: Transaction<Database>, companyId: string): Promise<CompanyRows> {
  const db = trx as unknown as AnyTables;
  const entries = [];
  // One query at a time: a transaction holds a single connection.
  for (const section of SECTIONS) entries.push([section, await db.selectFrom(TABLE_OF[section]).selectAll().where('company_id', '=', companyId).execute()] as const);
  return Object.fromEntries(entries) as unknown as CompanyRows;
}

/** Badge ids of the document that employees of the organisation's other companies already hold. */
async function badgesElsewhere(trx: Transaction<Database>, organisationId: string, companyId: string, doc: ReadDocument): Promise<Set<string>> {
  const badges = [...new Set(doc.users.upserts.flatMap(({ entry }) => (entry.badgeId ? [entry.badgeId] : [])))];
  const taken = new Set<string>();
  for (const batch of chunks(badges, IN_LIST_CHUNK)) {
    const rows = await trx
      .selectFrom('employees')
      .select('badge_id')
      .where('organisation_id', '=', organisationId)
      .where('badge_id', 'in', batch)
      .where('company_id', '<>', companyId)
      .execute();
    for (const row of rows) if (row.badge_id) taken.add(row.badge_id);
  }
  return taken;
}

async function upsertRows(trx: Transaction<Database>, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
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
  }
}

async function deleteRows(trx: Transaction<Database>, table: string, companyId: string, ids: string[]): Promise<void> {
  const db = trx as unknown as AnyTables;
  for (const batch of chunks(ids, IN_LIST_CHUNK)) {
    await db.deleteFrom(table).where('company_id', '=', companyId).where('id', 'in', batch).execute();
  }
}

async function applyPlan(trx: Transaction<Database>, companyId: string, plan: ImportPlan): Promise<void> {
  // Dependants go first; a removed user's badge is free before anyone else takes it.
  for (const section of ['shifts', 'contracts', 'users'] as const) await deleteRows(trx, TABLE_OF[section], companyId, plan[section].deleteIds);
  for (const batch of chunks(plan.badgeMoves, IN_LIST_CHUNK)) {
    await trx.updateTable('employees').set({ badge_id: null }).where('company_id', '=', companyId).where('id', 'in', batch).execute();
  }
  for (const section of SECTIONS) await upsertRows(trx, TABLE_OF[section], plan[section].upserts as unknown as Array<Record<string, unknown>>);
  for (const section of ['positions', 'departments', 'shiftTypes', 'contractTypes'] as const) await deleteRows(trx, TABLE_OF[section], companyId, plan[section].deleteIds);
}

function counts(plan: ImportPlan): ImportCounts {
  return Object.fromEntries(SECTIONS.map((s) => [s, { created: plan[s].created, updated: plan[s].updated, deleted: plan[s].deleteIds.length }])) as ImportCounts;
}

/**
 * Validates `document` whole (400 `invalid_import` listing every problem, nothing written) and
 * applies it in one transaction. Re-importing the same document changes nothing.
 */
export async function importCompanyData(db: Db, companyId: string, document: unknown, now = Date.now()): Promise<ImportCounts> {
  const errors: FieldError[] = [];
  const doc = readDocument(document, errors);
  // Not an object at all: there is nothing to cross-check.
  if (errors.length > 0 && errors[0]?.path === '') throw invalidImport(errors);
  const result = await db.transaction().execute(async (trx) => {
    const company = await companySettings(trx, companyId);
    if (!company) throw notFound(`No company ${companyId}.`, 'company_not_found');
    const ctx: PlanContext = {
      companyId,
      organisationId: company.organisationId,
      timezone: company.timezone,
      currency: company.currency,
      now,
      badgesElsewhere: await badgesElsewhere(trx, company.organisationId, companyId, doc),
    };
    const rows = await loadRows(trx, companyId);
    const plan = planImport(doc, rows, ctx, errors);
    if (errors.length > 0) throw invalidImport(errors);
    await applyPlan(trx, companyId, plan);
    await recordChanges(trx, companyId, importChanges(plan, rows, company.timezone), { at: now, timezone: company.timezone });
    const result = counts(plan);
    if (changed(result)) {
      await bumpDataVersion(trx, companyId, now);
    }
    return result;
  });
  if (!changed(result)) return result;
  announceChanges(db, companyId);
  // Let every instance's company record from before the commit expire (see tenancy/company-cache.ts), so
  // the change is served the moment this returns.
  await sleep(IMPORT_SETTLE_MS);
  return result;
}

function changed(result: ImportCounts): boolean {
  return Object.values(result).some((c) => c.created + c.updated + c.deleted > 0);
}

function invalidImport(errors: FieldError[]): Error {
  const noun = errors.length === 1 ? 'problem' : 'problems';
  return badRequest('invalid_import', `The import document has ${errors.length} ${noun}; nothing was imported.`, errors);
}
