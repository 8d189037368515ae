// Tenant isolation: two organisations, each with its own client, with data on the same days and the
// same refs. Neither can read the other's employees, contracts or shifts by any parameter or cursor.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import type { Tenant } from '../support/tenants.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { apiGet, baseDocument, contract, dayFromToday, shift, user, walk } from './fixtures.ts';
import type { Page } from '../support/http.ts';

let server: TestServer;
const T = (days: number) => dayFromToday(days);

interface Side {
  tenant: Tenant;
  token: string;
  ids: Set<string>;
}
let north: Side;
let south: Side;

async function side(name: string): Promise<Side> {
  const doc = baseDocument();
  // Same refs, badge ids and days on both sides: only the company tells them apart.
  for (let i = 0; i < 12; i++) doc.users.push(user(`u${i}`, { badgeId: `B-${i}`, timeclockActive: true, lastName: `${name} ${i}` }));
  for (let i = 0; i < 12; i++) doc.contracts.push(contract(`c${i}`, `u${i}`));
  for (let i = 0; i < 40; i++) doc.shifts.push(shift(`s${i}`, T((i % 5) - 2), { userRef: i % 4 === 0 ? null : `u${i % 12}`, note: name }));
  const { tenant, token } = await signedInCompany(server.ctx, { name, data: doc });
  const ids = new Set<string>();
  for (const table of ['employees', 'contracts', 'shifts', 'departments', 'positions', 'shift_types', 'contract_types'] as const) {
    for (const row of await server.ctx.db.selectFrom(table).select('id').where('company_id', '=', tenant.companyId).execute()) ids.add(row.id);
  }
  return { tenant, token, ids };
}

before(async () => {
  server = await startTestServer({}, { inProcess: true });
  north = await side('North');
  south = await side('South');
});
after(() => server.close());

const LISTINGS = ['/company/users', `/company/users?from=2000-01-01&to=${T(400)}`, '/company/contracts', `/company/contracts?from=2000-01-01&to=${T(400)}`, `/company/timetable?from=${T(-2)}&to=${T(2)}`];

test('each client sees exactly its own company: every id it gets back is its own', async () => {
  for (const me of [north, south]) {
    const other = me === north ? south : north;
    for (const path of LISTINGS) {
      const { items } = await walk<{ id: string; userId?: string | null; departmentId?: string }>(server.baseUrl, me.token, `${path}${path.includes('?') ? '&' : '?'}limit=5`);
      assert.ok(items.length > 0, path);
      for (const item of items) {
        assert.ok(me.ids.has(item.id), `${path}: ${item.id} is mine`);
        assert.ok(!other.ids.has(item.id));
        if (item.userId) assert.ok(me.ids.has(item.userId));
        if (item.departmentId) assert.ok(me.ids.has(item.departmentId));
      }
    }
    for (let days = -2; days <= 2; days++) {
      const feed = await apiGet<{ company: { id: string }; shifts: Array<{ id: string; note: string; user: { id: string } | null }> }>(server.baseUrl, me.token, `/feeds/timetable?date=${T(days)}`);
      assert.equal(feed.body.company.id, me.tenant.companyId);
      assert.equal(feed.body.shifts.length, 8);
      for (const s of feed.body.shifts) {
        assert.ok(me.ids.has(s.id));
        assert.equal(s.note, me === north ? 'North' : 'South');
        if (s.user) assert.ok(me.ids.has(s.user.id));
      }
    }
    const configuration = await apiGet<{ departments: Array<{ id: string }>; shiftTypes: Array<{ id: string }> }>(server.baseUrl, me.token, '/company/configuration');
    for (const d of [...configuration.body.departments, ...configuration.body.shiftTypes]) assert.ok(me.ids.has(d.id));
  }
});

test('no parameter reaches another company: companyId, company, tenant are unknown parameters', async () => {
  for (const name of ['companyId', 'company_id', 'company', 'tenant', 'organisationId']) {
    for (const path of ['/company/users', '/company/contracts', '/company/timetable', '/feeds/timetable']) {
      const response = await apiGet<{ errors: Array<{ path: string }> }>(server.baseUrl, north.token, `${path}?${name}=${south.tenant.companyId}`);
      assert.equal(response.status, 400, `${path}?${name}`);
      assert.deepEqual(response.body.errors.map((e) => e.path), [`/querystring/${name}`]);
    }
  }
});

test('no cursor reaches another company: the other side\'s cursors are 400 on every listing', async () => {
  for (const path of LISTINGS) {
    const separator = path.includes('?') ? '&' : '?';
    const southPage = await apiGet<Page<unknown>>(server.baseUrl, south.token, `${path}${separator}limit=2`);
    const cursor = southPage.body.nextCursor;
    assert.ok(cursor, path);
    const response = await apiGet<{ code: string; data?: unknown }>(server.baseUrl, north.token, `${path}${separator}limit=2&cursor=${encodeURIComponent(cursor)}`);
    assert.equal(response.status, 400, path);
    assert.equal(response.body.code, 'invalid_cursor');
    assert.equal(response.body.data, undefined);
  }
});

test('an import only ever touches its own company, even with the same refs', async () => {
  const before = await walk<{ id: string; lastName: string }>(server.baseUrl, south.token, '/company/users');
  const result = await importCompanyData(server.ctx.db, north.tenant.companyId, { users: [{ ref: 'u0', deleted: true }], shifts: [{ ref: 's1', deleted: true }] });
  assert.equal(result.users.deleted, 1);
  const after = await walk<{ id: string; lastName: string }>(server.baseUrl, south.token, '/company/users');
  assert.deepEqual(after.items, before.items);
  const southShifts = await apiGet<Page<unknown>>(server.baseUrl, south.token, `/company/timetable?from=${T(-2)}&to=${T(2)}&limit=1000`);
  assert.equal(southShifts.body.data.length, 40);
});
