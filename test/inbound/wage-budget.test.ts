import { test } from 'node:test';
import assert from 'node:assert/strict';
import { signedInCompany, useCompanyServer } from '../support/company.ts';
import { addDepartment } from '../timeclock/fixtures.ts';
import { getJson, postJson, type Page, type ProblemBody } from '../support/http.ts';

interface WageBudgetItem {
  id: string;
  departmentId: string;
  date: string | null;
  week: string | null;
  amount: number;
  hours: number | null;
  updatedAt: string;
}

const company = useCompanyServer({ name: 'Garage', inProcess: true });
const url = () => `${company.server.baseUrl}/api/v1/company/wage-budget`;

const list = (query: string) => getJson<Page<WageBudgetItem>>(`${url()}?${query}`, company.token);
const strip = (items: WageBudgetItem[]) => items.map(({ id: _id, updatedAt: _u, ...rest }) => rest);

test('day and week budgets are stored, re-sent unchanged, and updated when amount or hours change', async () => {
  const workshop = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Workshop');
  const items = [
    { departmentId: workshop, date: '2026-11-18', amount: 950.5, hours: 38.25 },
    { departmentId: workshop, week: '2026-W47', amount: 5200 },
  ];
  assert.deepEqual((await postJson(url(), company.token, { items })).body, { received: 2, created: 2, updated: 0, unchanged: 0 });
  assert.deepEqual(strip((await list('from=2026-11-18&to=2026-11-18')).body.data), [
    { departmentId: workshop, date: null, week: '2026-W47', amount: 5200, hours: null },
    { departmentId: workshop, date: '2026-11-18', week: null, amount: 950.5, hours: 38.25 },
  ]);

  assert.deepEqual((await postJson(url(), company.token, { items })).body, { received: 2, created: 0, updated: 0, unchanged: 2 });
  const changedHours = [{ ...items[0], hours: 40 }, { ...items[1], hours: null }];
  assert.deepEqual((await postJson(url(), company.token, { items: changedHours })).body, { received: 2, created: 0, updated: 1, unchanged: 1 });
  const changedAmount = [{ ...items[0], hours: 40 }, { ...items[1], amount: 5300 }];
  assert.deepEqual((await postJson(url(), company.token, { items: changedAmount })).body, { received: 2, created: 0, updated: 1, unchanged: 1 });
  assert.deepEqual(strip((await list(`from=2026-11-16&to=2026-11-22&departmentId=${workshop}`)).body.data).map((i) => [i.amount, i.hours]), [[5300, null], [950.5, 40]]);
});

test('the key is department and period: the same day twice in one batch is refused', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Paint');
  const refused = await postJson<ProblemBody>(url(), company.token, {
    items: [
      { departmentId: department, date: '2026-03-01', amount: 1 },
      { departmentId: department, date: '2026-03-01', amount: 2 },
      { departmentId: department, week: '2026-W09', amount: 3 },
    ],
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'invalid_batch');
  assert.deepEqual(refused.body.errors, [{ path: '/items/1', message: 'has the same department and date or week as /items/0' }]);
});

test('negative amounts or hours and more than 2 decimals are refused; revenue fields are unknown here', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Office');
  const typed = await postJson<ProblemBody>(url(), company.token, { items: [{ departmentId: department, date: '2026-03-01', amount: -1, hours: -0.5 }] });
  assert.equal(typed.status, 400);
  assert.deepEqual(typed.body.errors?.map((e) => e.path), ['/items/0/amount', '/items/0/hours']);
  const mixed = await postJson<ProblemBody>(url(), company.token, `{"items":[{"departmentId":"${department}","date":"2026-03-01","amount":-1},{"departmentId":"${department}","date":"2026-03-02","amount":1,"hours":1.123}]}`);
  assert.deepEqual(mixed.body.errors, [
    { path: '/items/0/amount', message: 'must be >= 0' },
    { path: '/items/1/hours', message: 'must have at most 2 decimals' },
  ], 'a schema problem in one item does not hide a rule problem in another');
  const kind = await postJson<ProblemBody>(url(), company.token, { items: [{ departmentId: department, date: '2026-03-01', amount: 1, kind: 'realised' }] });
  assert.equal(kind.status, 400);
  assert.deepEqual(kind.body.errors, [{ path: '/items/0/kind', message: 'unknown property "kind"' }]);
  const decimals = await postJson<ProblemBody>(url(), company.token, `{"items":[{"departmentId":"${department}","date":"2026-03-01","amount":10.001,"hours":7.125}]}`);
  assert.equal(decimals.status, 400);
  assert.deepEqual(decimals.body.errors, [
    { path: '/items/0/amount', message: 'must have at most 2 decimals' },
    { path: '/items/0/hours', message: 'must have at most 2 decimals' },
  ]);
  assert.deepEqual((await list(`from=2026-03-01&departmentId=${department}`)).body.data, []);
});

test('revenue and wage budget are separate streams, and each company sees only its own', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Shared');
  await postJson(url(), company.token, { items: [{ departmentId: department, date: '2026-04-01', amount: 100 }] });
  const revenue = await getJson<Page<unknown>>(`${company.server.baseUrl}/api/v1/company/revenue?from=2026-04-01`, company.token);
  assert.deepEqual(revenue.body.data, []);
  const { token: strangerToken } = await signedInCompany(company.server.ctx, { name: 'Stranger' });
  assert.deepEqual((await getJson<Page<unknown>>(`${url()}?from=2026-04-01`, strangerToken)).body.data, []);
  const write = await postJson<ProblemBody>(url(), strangerToken, { items: [{ departmentId: department, date: '2026-04-01', amount: 1 }] });
  assert.equal(write.status, 400);
  assert.deepEqual(write.body.errors, [{ path: '/items/0/departmentId', message: 'is not a department of this company' }]);
  assert.deepEqual((await list('from=2026-04-01')).body.data.map((i) => i.amount), [100]);
});
