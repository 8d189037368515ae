import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/platform/config.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { closeContext, createContext } from '../../src/app/bootstrap.ts';
import { COMPANY_RECORD_MAX_AGE_MS, CompanyCache } from '../../src/tenancy/company-cache.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { useTestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { apiGet, baseDocument, user } from '../company/fixtures.ts';

const server = useTestServer({}, { inProcess: true });

async function bumpDataVersion(companyId: string): Promise<void> {
  await server.ctx.db.updateTable('companies').set((eb) => ({ data_version: eb('data_version', '+', 1) })).where('id', '=', companyId).execute();
}

test('a company record is read again once it is older than its age limit', async () => {
  const { tenant } = await signedInCompany(server.ctx);
  const clock = new ManualClock();
  const cache = new CompanyCache(server.ctx.db, clock);
  const first = await cache.find(tenant.companyId);
  await bumpDataVersion(tenant.companyId);
  clock.advance(COMPANY_RECORD_MAX_AGE_MS);
  const later = await cache.find(tenant.companyId);
  assert.equal(later.dataVersion, first.dataVersion + 1);
});

test('requests arriving together share one read of the company record', async () => {
  const { tenant } = await signedInCompany(server.ctx);
  const cache = new CompanyCache(server.ctx.db, server.ctx.clock);
  const together = [1, 2, 3].map(async () => cache.find(tenant.companyId));
  const records = await Promise.all(together);
  assert.ok(records.every((record) => record === records[0]), 'one read, one record object');
});

test('an unknown company is a 404 problem, never cached as anything', async () => {
  const cache = new CompanyCache(server.ctx.db, server.ctx.clock);
  await assert.rejects(async () => cache.find('cmp_missing'), (error: { status?: number }) => error.status === 404);
});

test('an import made elsewhere is served the moment it returns, while the server is busy reading', async () => {
  const { tenant, token } = await signedInCompany(server.ctx);
  // Another process's handle on the same database, as the CLI (`wfs import`) or another instance has.
  const elsewhere = await createContext(loadConfig({ DATABASE_URL: server.config.databaseUrl, BASE_URL: server.config.baseUrl }), { poll: false });
  let reading = true;
  // Keeps the server's company record fresh in its cache, so a stale entry is there to be served.
  const poller = (async () => {
    while (reading) await apiGet(server.baseUrl, token, '/company/configuration');
  })();
  try {
    for (let round = 1; round <= 5; round++) {
      const document = baseDocument();
      document.users = [user(`emp-${round}`)];
      await importCompanyData(elsewhere.db, tenant.companyId, document);
      const users = await apiGet<{ data: Array<{ employeeNumber: string }> }>(server.baseUrl, token, '/company/users');
      assert.equal(users.status, 200);
      assert.ok(users.body.data.some((u) => u.employeeNumber === `E-emp-${round}`), `round ${round}: the new employee is listed`);
    }
  } finally {
    reading = false;
    await poller;
    await closeContext(elsewhere);
  }
});
