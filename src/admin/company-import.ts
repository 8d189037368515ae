// The operator's import of company data (`wfs import`, `POST /api/v1/admin/companies/{id}/import`): one
// function both call, so both write and audit alike. A module of its own, so that the other `wfs`
// commands do not load the import's worker and planning code.
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import { OPERATOR } from '../iam/audit.ts';
import { EVERY_ORGANISATION, auditChange, requireCompany } from '../iam/organisation-scope.ts';
import { importInWorker, type Rejection } from '../company/import-job.ts';
import type { ImportCounts } from '../company/import.ts';

type ImportSettings = Pick<Config, 'databaseUrl' | 'dbStatementTimeoutMs'>;

/**
 * `wfs import` and the operator API's import: `body` written into the company by a worker thread
 * (company/import-job.ts), and, once committed, an operator change in the company's organisation's
 * audit log (a rejected document changed nothing and is not one). `source` names the bytes in messages.
 */
export async function importedCompanyData(db: Db, config: ImportSettings, companyId: string, body: Buffer, source: string): Promise<ImportCounts | Rejection> {
  const settings = { databaseUrl: config.databaseUrl, statementTimeoutMs: config.dbStatementTimeoutMs, companyId, now: Date.now(), source };
  const outcome = await importInWorker(db, settings, body);
  if ('problems' in outcome) return outcome;
  // Written after the worker's commit, on this connection: the worker writes on a connection of its
  // own, and company/ may not call identity's audit. (The company's row is read only now, so an
  // unknown id keeps the worker's own not-found answer.)
  const company = await requireCompany(db, EVERY_ORGANISATION, companyId);
  await auditChange(db, OPERATOR, 'company_data_imported', { organisationId: company.organisation_id }, { companyId, counts: outcome });
  return outcome;
}
