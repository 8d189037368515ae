// No read of the company API may cost more as companies are added: each query's plan must reach its
// rows through an index led by company_id, and never scan a whole table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql, type Compilable, type KyselyPlugin, type RootOperationNode, type QueryId } from 'kysely';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { testDialect } from '../support/database.ts';
import type { Db } from '../../src/platform/db/database.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { ACTIVE_OR_FUTURE_END, usersQuery } from '../../src/company/users.ts';
import { getConfiguration } from '../../src/company/configuration.ts';
import { findCompany } from '../../src/tenancy/companies.ts';
import { today } from '../../src/platform/period.ts';
import { contractsQuery } from '../../src/company/contracts.ts';
import { shiftsQuery } from '../../src/company/shifts.ts';
import { feedQuery } from '../../src/company/feed.ts';
import { baseDocument, contract, shift, user } from './fixtures.ts';

let server: TestServer;
let companyId = '';

before(async () => {
  server = await startTestServer({}, { inProcess: true });
  for (let c = 0; c < 3; c++) {
    const tenant = await provisionTenant(server.ctx, { name: `Company ${c}` });
    const doc = baseDocument();
    for (let i = 0; i < 40; i++) doc.users.push(user(`u${i}`));
    for (let i = 0; i < 40; i++) doc.contracts.push(contract(`c${i}`, `u${i}`));
    for (let i = 0; i < 400; i++) doc.shifts.push(shift(`s${i}`, `2026-06-${String(1 + (i % 30)).padStart(2, '0')}`, { userRef: `u${i % 40}` }));
    await importCompanyData(server.ctx.db, tenant.companyId, doc);
    companyId = tenant.companyId;
  }
  if (testDialect === 'postgres') await sql`analyze`.execute(server.ctx.db);
});
after(() => server.close());

/** The plan as text lines; on PostgreSQL with sequential scans priced out, so any left are unavoidable. */
async function plan(build: (db: Db) => Compilable<unknown>): Promise<string[]> {
  return server.ctx.db.transaction().execute(async (trx) => {
    const query = build(trx).compile();
    if (testDialect === 'postgres') {
      await sql`set local enable_seqscan = off`.execute(trx);
      const result = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
      return result.rows.map((row) => row['QUERY PLAN']);
    }
    const result = await trx.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    return result.rows.map((row) => row.detail);
  });
}

/**
 * The statements `run` sends through Kysely, recorded on their way (and left unchanged), each as a
 * query `plan` can explain: for reads that build their queries inside, such as the configuration.
 */
async function recorded(run: (db: Db) => Promise<unknown>): Promise<Compilable<unknown>[]> {
  const statements: Array<{ node: RootOperationNode; queryId: QueryId }> = [];
  const recorder: KyselyPlugin = {
    transformQuery: (args) => {
      statements.push(args);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await run(server.ctx.db.withPlugin(recorder));
  return statements.map(({ node, queryId }) => ({ compile: () => server.ctx.db.getExecutor().compileQuery(node, queryId) }));
}

function assertIndexedByCompany(lines: string[], table: string): void {
  const text = lines.join('\n');
  if (testDialect === 'postgres') {
    assert.doesNotMatch(text, /Seq Scan/, text);
    assert.match(text, new RegExp(`Index Cond: \\(+company_id = `), text);
  } else {
    assert.ok(!lines.some((line) => /^SCAN /.test(line)), text);
    assert.match(text, new RegExp(`SEARCH ${table} USING (COVERING )?INDEX ${table}_company_\\w+ \\(company_id=\\?`), text);
  }
}

const period = { from: '2026-06-01', to: '2026-06-30' };

test('configuration: each of its lists through an index led by company_id', async () => {
  const company = await findCompany(server.ctx.db, companyId);
  const statements = await recorded((db) => getConfiguration(db, company));
  const tables = ['departments', 'positions', 'shift_types', 'contract_types'];
  assert.equal(statements.length, tables.length, 'one query per list');
  for (const [index, table] of tables.entries()) {
    const statement = statements[index] ?? assert.fail();
    assert.match(statement.compile().sql, new RegExp(`from "${table}"`));
    assertIndexedByCompany(await plan(() => statement), table);
  }
});

test('users: an index led by company_id', async () => {
  // Without from/to: employment active today or starting later.
  assertIndexedByCompany(await plan((db) => usersQuery(db, companyId, { from: today('Europe/Amsterdam'), to: ACTIVE_OR_FUTURE_END }, undefined).limit(501)), 'employees');
  assertIndexedByCompany(await plan((db) => usersQuery(db, companyId, period, undefined).limit(501)), 'employees');
  assertIndexedByCompany(await plan((db) => usersQuery(db, companyId, period, ['1001', 'emp_x']).limit(501)), 'employees');
});

test('contracts: an index led by company_id', async () => {
  // Without from/to: contracts active today.
  const day = today('Europe/Amsterdam');
  assertIndexedByCompany(await plan((db) => contractsQuery(db, companyId, { from: day, to: day }, undefined).limit(501)), 'contracts');
  assertIndexedByCompany(await plan((db) => contractsQuery(db, companyId, period, undefined).limit(501)), 'contracts');
  assertIndexedByCompany(await plan((db) => contractsQuery(db, companyId, period, ['2020-01-01', 'con_x']).limit(501)), 'contracts');
});

test('timetable and feed: an index led by company_id, joins by key', async () => {
  assertIndexedByCompany(await plan((db) => shiftsQuery(db, companyId, period, undefined).limit(501)), 'shifts');
  assertIndexedByCompany(await plan((db) => shiftsQuery(db, companyId, period, ['2026-06-02', 0, 'shf_x']).limit(501)), 'shifts');
  assertIndexedByCompany(await plan((db) => feedQuery(db, companyId, '2026-06-02')), 'shifts');
});
