import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCompanyServer } from '../support/company.ts';
import type { TestServer } from '../support/server.ts';
import { WfsClient } from '../../packages/client/src/index.ts';

let server: TestServer;
let client: WfsClient;
before(async () => {
  const shop = await startCompanyServer({
    name: 'Shop',
    data: {
      departments: [{ ref: 'till', name: 'Till', code: 'TIL' }],
      users: Array.from({ length: 7 }, (_, i) => ({
        ref: `u${i}`, employeeNumber: `E${i}`, firstName: `First${i}`, lastName: 'Last', email: null,
        employmentStart: '2020-01-01', employmentEnd: null, departmentRefs: ['till'], badgeId: null,
      })),
    },
  });
  server = shop.server;
  client = new WfsClient({ baseUrl: server.baseUrl, refreshToken: shop.refreshToken });
});
after(() => server.close());

test('list follows nextCursor through every page', async () => {
  const requested: string[] = [];
  const counting = new WfsClient({
    baseUrl: server.baseUrl,
    refreshToken: client.tokens.refreshToken,
    fetch: (request) => (requested.push(new URL(request.url).search), fetch(request)),
  });
  const users = await counting.list('/api/v1/company/users', { limit: 2 });
  assert.deepEqual(users.map((user) => user.employeeNumber).sort(), ['E0', 'E1', 'E2', 'E3', 'E4', 'E5', 'E6']);
  assert.equal(new Set(users.map((user) => user.id)).size, 7);
  assert.equal(requested.filter((search) => search.includes('limit=2')).length, 4, '4 pages of at most 2');
});

test('typed calls: configuration, and a revenue batch that is idempotent', async () => {
  const configuration = await client.configuration();
  assert.equal(configuration.company.name, 'Shop');
  const till = configuration.departments.find((department) => department.code === 'TIL');
  assert.ok(till);
  const items = [
    { departmentId: till.id, date: '2026-11-20', kind: 'realised' as const, amount: 1520.75 },
    { departmentId: till.id, week: '2026-W49', kind: 'prognosis' as const, amount: 11000 },
  ];
  assert.deepEqual(await client.createRevenue(items), { received: 2, created: 2, updated: 0, unchanged: 0 });
  assert.deepEqual(await client.createRevenue(items), { received: 2, created: 0, updated: 0, unchanged: 2 });
  const stored = await client.list('/api/v1/company/revenue', { from: '2026-11-20', to: '2026-12-06' });
  const byKind = stored.map((item) => [item.kind, item.date, item.week, item.amount]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  assert.deepEqual(byKind, [['prognosis', null, '2026-W49', 11000], ['realised', '2026-11-20', null, 1520.75]]);
});
