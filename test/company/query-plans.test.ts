// No read of the company API may cost more as companies are added: each query's plan must reach its
// rows through an index led by company_id, and never scan a whole table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { testDialect } from '../support/database.ts';
import type { Db } from '../../src/platform/db/database.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { usersQuery } from '../../src/company/users.ts';
import { contractsQuery } from '../../src/company/contracts.ts';
import { shiftsQuery } from '../../src/company/shifts.ts';
import { feedQuery } from '../../src/company/feed.ts';
import { baseDocument, contract, shift, user } from './fixtures.ts';

let server: TestServer;
let companyId = '';

before(async () => {
  server = await startTestServer();
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

test('users: an index led by company_id', async () => {
  assertIndexedByCompany(await plan((db) => usersQuery(db, companyId, period, undefined).limit(501)), 'employees');
  assertIndexedByCompany(await plan((db) => usersQuery(db, companyId, period, ['1001', 'emp_x']).limit(501)), 'employees');
});

test('contracts: an index led by company_id', async () => {
  assertIndexedByCompany(await plan((db) => contractsQuery(db, companyId, period, ['2020-01-01', 'con_x']).limit(501)), 'contracts');
});

test('timetable and feed: an index led by company_id, joins by key', async () => {
  assertIndexedByCompany(await plan((db) => shiftsQuery(db, companyId, period, undefined).limit(501)), 'shifts');
  assertIndexedByCompany(await plan((db) => shiftsQuery(db, companyId, period, ['2026-06-02', 0, 'shf_x']).limit(501)), 'shifts');
  assertIndexedByCompany(await plan((db) => feedQuery(db, companyId, '2026-06-02')), 'shifts');
});
