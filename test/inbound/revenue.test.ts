import { test } from 'node:test';
import assert from 'node:assert/strict';
import { signedInCompany, useCompanyServer } from '../support/company.ts';
import { provisionTenant } from '../support/tenants.ts';
import { addDepartment } from '../timeclock/fixtures.ts';
import { getJson, postJson, type Page, type ProblemBody } from '../support/http.ts';

interface Outcome {
  received: number;
  created: number;
  updated: number;
  unchanged: number;
}

interface RevenueItem {
  id: string;
  departmentId: string;
  date: string | null;
  week: string | null;
  kind: string;
  category: string | null;
  amount: number;
  updatedAt: string;
}

const company = useCompanyServer({ name: 'Bistro', inProcess: true });
const url = () => `${company.server.baseUrl}/api/v1/company/revenue`;

function list(query: string) {
  return getJson<Page<RevenueItem>>(`${url()}?${query}`, company.token);
}

test('a batch of day and week items, realised and prognosis, is stored and read back by period', async () => {
  const kitchen = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Kitchen');
  const bar = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Bar');
  const items = [
    { departmentId: kitchen, date: '2026-11-20', kind: 'realised', amount: 1234.5 },
    { departmentId: kitchen, date: '2026-11-20', kind: 'prognosis', amount: 1300 },
    { departmentId: bar, week: '2026-W47', kind: 'prognosis', amount: 8000.25, category: 'drinks' },
    { departmentId: bar, date: '2026-11-20', kind: 'realised', amount: -12.5, category: 'refunds' },
  ];
  const stored = await postJson<Outcome>(url(), company.token, { items });
  assert.equal(stored.status, 200);
  assert.deepEqual(stored.body, { received: 4, created: 4, updated: 0, unchanged: 0 });

  const friday = await list('from=2026-11-20&to=2026-11-20');
  assert.equal(friday.status, 200);
  assert.ok(friday.headers.get('etag'));
  assert.equal(friday.body.nextCursor, null);
  const shapes = friday.body.data.map(({ id: _id, updatedAt, ...rest }) => {
    assert.match(updatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+01:00$/);
    return rest;
  });
  // Ordered by the first day of the period: the week (from Monday 16th) comes first.
  assert.deepEqual(shapes[0], { departmentId: bar, date: null, week: '2026-W47', kind: 'prognosis', category: 'drinks', amount: 8000.25 });
  assert.deepEqual(
    new Set(shapes.slice(1).map((s) => JSON.stringify(s))),
    new Set([
      { departmentId: kitchen, date: '2026-11-20', week: null, kind: 'realised', category: null, amount: 1234.5 },
      { departmentId: kitchen, date: '2026-11-20', week: null, kind: 'prognosis', category: null, amount: 1300 },
      { departmentId: bar, date: '2026-11-20', week: null, kind: 'realised', category: 'refunds', amount: -12.5 },
    ].map((s) => JSON.stringify(s))),
  );

  // The week item overlaps Sunday the 22nd, not Monday the 23rd.
  assert.deepEqual((await list('from=2026-11-22&to=2026-11-23')).body.data.map((i) => i.week), ['2026-W47']);
  assert.deepEqual((await list('from=2026-11-23&to=2026-11-30')).body.data, []);
  // Filters.
  assert.deepEqual((await list(`from=2026-11-16&to=2026-11-22&kind=prognosis&departmentId=${kitchen}`)).body.data.map((i) => i.amount), [1300]);
});

test('sending the same batch again changes nothing; a changed amount updates only that item', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Terrace');
  const items = [
    { departmentId: department, date: '2026-10-01', kind: 'realised', amount: 100.1 },
    { departmentId: department, date: '2026-10-02', kind: 'realised', amount: 200.2 },
    { departmentId: department, week: '2026-W40', kind: 'prognosis', amount: 900 },
  ];
  assert.deepEqual((await postJson<Outcome>(url(), company.token, { items })).body, { received: 3, created: 3, updated: 0, unchanged: 0 });
  const before = (await list(`from=2026-10-01&to=2026-10-02&departmentId=${department}`)).body.data;

  const again = await postJson<Outcome>(url(), company.token, { items });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, { received: 3, created: 0, updated: 0, unchanged: 3 });
  assert.deepEqual((await list(`from=2026-10-01&to=2026-10-02&departmentId=${department}`)).body.data, before);

  const changed = items.map((item, i) => (i === 1 ? { ...item, amount: 250 } : item));
  assert.deepEqual((await postJson<Outcome>(url(), company.token, { items: changed })).body, { received: 3, created: 0, updated: 1, unchanged: 2 });
  const after = (await list(`from=2026-10-02&to=2026-10-02&departmentId=${department}&kind=realised`)).body.data;
  assert.equal(after.length, 1);
  assert.equal(after[0]?.amount, 250);
  assert.equal(after[0]?.id, before.find((i) => i.date === '2026-10-02')?.id, 'an update keeps the item id');
});

test('amounts are exact: decimals are read from the JSON text, never through a float', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Exact');
  const body = `{"items":[
    {"departmentId":"${department}","date":"2026-09-01","kind":"realised","amount":0.1},
    {"departmentId":"${department}","date":"2026-09-02","kind":"realised","amount":0.2},
    {"departmentId":"${department}","date":"2026-09-03","kind":"realised","amount":1.50},
    {"departmentId":"${department}","date":"2026-09-04","kind":"realised","amount":12345678901.99},
    {"departmentId":"${department}","date":"2026-09-05","kind":"realised","amount":1.5e2}]}`;
  assert.deepEqual((await postJson<Outcome>(url(), company.token, body)).body, { received: 5, created: 5, updated: 0, unchanged: 0 });
  const stored = (await list(`from=2026-09-01&to=2026-09-05&departmentId=${department}`)).body.data;
  assert.deepEqual(stored.map((i) => i.amount), [0.1, 0.2, 1.5, 12345678901.99, 150]);
  const rows = await company.server.ctx.db.selectFrom('inbound_items').select('amount_minor').where('department_id', '=', department).orderBy('period_key').execute();
  assert.deepEqual(rows.map((r) => Number(r.amount_minor)), [10, 20, 150, 1234567890199, 15000]);
});

test('three decimals are refused, also when a float would round them away', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Decimals');
  const body = `{"items":[
    {"departmentId":"${department}","date":"2026-09-01","kind":"realised","amount":12.345},
    {"departmentId":"${department}","date":"2026-09-02","kind":"realised","amount":1.0000000000000001},
    {"departmentId":"${department}","date":"2026-09-03","kind":"realised","amount":1e-3}]}`;
  const refused = await postJson<ProblemBody>(url(), company.token, body);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'invalid_batch');
  assert.deepEqual(refused.body.errors, [
    { path: '/items/0/amount', message: 'must have at most 2 decimals' },
    { path: '/items/1/amount', message: 'must have at most 2 decimals' },
    { path: '/items/2/amount', message: 'must have at most 2 decimals' },
  ]);
  assert.deepEqual((await list(`from=2026-09-01&to=2026-09-03&departmentId=${department}`)).body.data, []);
});

test('every bad item is listed by JSON path and nothing of the batch is stored', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Bakery');
  const other = await provisionTenant(company.server.ctx, { name: 'Other' });
  const foreignDepartment = await addDepartment(company.server.ctx.db, other.companyId, 'Foreign');
  const items = [
    { departmentId: department, date: '2026-08-01', kind: 'realised', amount: 10 },
    { departmentId: foreignDepartment, date: '2026-08-01', kind: 'realised', amount: 10 },
    { departmentId: department, date: '2026-08-02', week: '2026-W31', kind: 'realised', amount: 10 },
    { departmentId: department, kind: 'realised', amount: 10 },
    { departmentId: department, date: '2026-02-30', kind: 'realised', amount: 10 },
    { departmentId: department, week: '2026-W54', kind: 'realised', amount: 10 },
    { departmentId: department, date: '2026-08-01', kind: 'realised', amount: 11 },
    { departmentId: department, date: '2026-08-01', kind: 'realised', amount: 12, category: 'food' },
  ];
  const refused = await postJson<ProblemBody>(url(), company.token, { items });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'invalid_batch');
  assert.match(refused.body.detail, /6 of 8 items are invalid; nothing was stored/);
  assert.deepEqual(refused.body.errors, [
    { path: '/items/1/departmentId', message: 'is not a department of this company' },
    { path: '/items/2', message: 'must have exactly one of date and week' },
    { path: '/items/3', message: 'must have exactly one of date and week' },
    { path: '/items/4/date', message: 'must be a date as YYYY-MM-DD' },
    { path: '/items/5/week', message: 'must be an ISO week as YYYY-Www (for example 2026-W47)' },
    { path: '/items/6', message: 'has the same department, date or week, kind and category as /items/0' },
  ]);
  assert.deepEqual((await list(`from=2026-08-01&to=2026-08-31&departmentId=${department}`)).body.data, []);
});

test('items of the wrong type are listed together with the other items\' broken rules, and nothing is stored', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Mixed');
  const items = [
    { departmentId: department, date: '2026-08-11', kind: 'realised', amount: 1.234 },
    { departmentId: 'dep_nope', date: '2026-08-11', kind: 'realised', amount: 1 },
    { departmentId: department, date: '2026-08-12', kind: 'other', amount: 1 },
    { departmentId: department, date: '2026-08-13', kind: 'realised', amount: '1' },
    { departmentId: department, date: '2026-02-30', kind: 'realised', amount: 1 },
    { departmentId: department, date: '2026-08-14', kind: 'realised', amount: 5 },
  ];
  const refused = await postJson<ProblemBody>(url(), company.token, { items });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'validation_failed', 'a field of the wrong type makes it validation_failed');
  assert.match(refused.body.detail, /5 of 6 items are invalid; nothing was stored/);
  assert.deepEqual(refused.body.errors?.map((e) => e.path), ['/items/0/amount', '/items/1/departmentId', '/items/2/kind', '/items/3/amount', '/items/4/date']);
  assert.deepEqual((await list(`from=2026-08-11&to=2026-08-14&departmentId=${department}`)).body.data, []);
});

test('a body that is not a batch at all is refused by the schema alone', async () => {
  for (const body of [{ items: 'none' }, { items: [{ departmentId: 'x', date: '2026-08-01', kind: 'realised', amount: 1 }], extra: true }, {}, 'null', '[]', '"items"']) {
    const refused = await postJson<ProblemBody>(url(), company.token, body);
    assert.equal(refused.status, 400, JSON.stringify(body));
    assert.equal(refused.body.code, 'validation_failed');
    assert.ok(refused.body.errors?.some((e) => !e.path.startsWith('/items/')), JSON.stringify(refused.body.errors));
  }
});

test('one bad item among 5,000 stores nothing and is reported; 5,000 good ones are stored at once', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Large');
  const items = Array.from({ length: 5000 }, (_, i) => ({
    departmentId: department,
    date: '2026-07-01',
    kind: i % 2 === 0 ? 'realised' : 'prognosis',
    category: `c${Math.floor(i / 2)}`,
    amount: i + 0.25,
  }));
  const bad = items.map((item, i) => (i === 3217 ? { ...item, amount: 1.005 } : item));
  const refused = await postJson<ProblemBody>(url(), company.token, { items: bad });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'invalid_batch');
  assert.deepEqual(refused.body.errors, [{ path: '/items/3217/amount', message: 'must have at most 2 decimals' }]);
  assert.deepEqual((await list(`from=2026-07-01&to=2026-07-01&departmentId=${department}&limit=1`)).body.data, []);

  const accepted = await postJson<Outcome>(url(), company.token, { items });
  assert.equal(accepted.status, 200);
  assert.deepEqual(accepted.body, { received: 5000, created: 5000, updated: 0, unchanged: 0 });
  const again = await postJson<Outcome>(url(), company.token, { items });
  assert.deepEqual(again.body, { received: 5000, created: 0, updated: 0, unchanged: 5000 });

  // Paged read-back: 1000 per page, five pages, no item twice.
  const seen = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `from=2026-07-01&to=2026-07-01&departmentId=${department}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await list(query);
    assert.equal(page.status, 200);
    for (const item of page.body.data) seen.add(item.id);
    cursor = page.body.nextCursor;
    pages += 1;
  } while (cursor);
  assert.equal(seen.size, 5000);
  assert.equal(pages, 5);
});

test('5,001 items are refused as batch_too_large; an empty batch is a 400', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'TooLarge');
  const items = Array.from({ length: 5001 }, (_, i) => ({ departmentId: department, date: '2026-06-01', kind: 'realised', category: `c${i}`, amount: 1 }));
  const refused = await postJson<ProblemBody>(url(), company.token, { items });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'batch_too_large');
  assert.deepEqual(refused.body.errors, [{ path: '/items', message: 'must have at most 5000 items' }]);
  const empty = await postJson<ProblemBody>(url(), company.token, { items: [] });
  assert.equal(empty.status, 400);
  assert.equal(empty.body.code, 'validation_failed');
});

test('malformed JSON is 400, another content type 415, a body over 2 MiB 413', async () => {
  const malformed = await postJson<ProblemBody>(url(), company.token, '{"items": [');
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.code, 'malformed_body');
  const poisoned = await postJson<ProblemBody>(url(), company.token, '{"items":[],"__proto__":{"admin":true}}');
  assert.equal(poisoned.status, 400);
  assert.equal(poisoned.body.code, 'malformed_body');

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
    const response = await company.server.fetch(url(), { method: 'POST', headers: { authorization: `Bearer ${company.token}`, 'content-type': contentType }, body: 'items=1' });
    assert.equal(response.status, 415, contentType);
    assert.match(response.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal(((await response.json()) as ProblemBody).code, 'unsupported_media_type');
  }

  const huge = JSON.stringify({ items: [{ departmentId: 'x'.repeat(2 * 1024 * 1024), date: '2026-01-01', kind: 'realised', amount: 1 }] });
  const tooLarge = await postJson<ProblemBody>(url(), company.token, huge);
  assert.equal(tooLarge.status, 413);
  assert.equal(tooLarge.body.code, 'payload_too_large');

  const wrongType = await postJson<ProblemBody>(url(), company.token, { items: [{ departmentId: 'd', date: '2026-01-01', kind: 'realised', amount: '12.50' }] });
  assert.equal(wrongType.status, 400);
  assert.deepEqual(wrongType.body.errors, [{ path: '/items/0/amount', message: 'must be number' }]);
});

test('the read-back rejects unknown parameters and periods over 92 days', async () => {
  const typo = await list('form=2026-01-01');
  assert.equal(typo.status, 400);
  assert.match(JSON.stringify(typo.body), /form/);
  assert.equal((await list('from=2026-01-01&to=2026-04-03')).status, 400);
  assert.equal((await list('from=2026-01-01&to=2026-04-02')).status, 200);
  assert.equal((await list('kind=forecast')).status, 400);
});

test('a company sees and changes only its own figures', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Private');
  await postJson<Outcome>(url(), company.token, { items: [{ departmentId: department, date: '2026-05-05', kind: 'realised', amount: 42 }] });
  const { token: otherToken } = await signedInCompany(company.server.ctx, { name: 'Neighbour', organisationId: company.tenant.organisationId });
  const seen = await getJson<Page<RevenueItem>>(`${url()}?from=2026-05-05&to=2026-05-05`, otherToken);
  assert.equal(seen.status, 200);
  assert.deepEqual(seen.body.data, []);
  const write = await postJson<ProblemBody>(url(), otherToken, { items: [{ departmentId: department, date: '2026-05-05', kind: 'realised', amount: 1 }] });
  assert.equal(write.status, 400);
  assert.deepEqual(write.body.errors, [{ path: '/items/0/departmentId', message: 'is not a department of this company' }]);
  assert.deepEqual((await list(`from=2026-05-05&to=2026-05-05&departmentId=${department}`)).body.data.map((i) => i.amount), [42]);
});

/** The change-log entries of the department's figures, as `type` counts. */
async function changeTypes(department: string): Promise<Record<string, number>> {
  const rows = await company.server.ctx.db
    .selectFrom('company_changes')
    .innerJoin('inbound_items', 'inbound_items.id', 'company_changes.resource_id')
    .select(['company_changes.type', (eb) => eb.fn.countAll<string>().as('n')])
    .where('inbound_items.department_id', '=', department)
    .groupBy('company_changes.type')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.type, Number(row.n)]));
}

test('concurrent batches over the same new keys, in opposite orders, both succeed: one creates them, the other updates them', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Busy');
  const items = Array.from({ length: 300 }, (_, i) => ({ departmentId: department, date: '2026-04-10', kind: 'realised', category: `c${i}`, amount: i }));
  const answers = await Promise.all([
    postJson<Outcome>(url(), company.token, { items }),
    postJson<Outcome>(url(), company.token, { items: [...items].reverse().map((item) => ({ ...item, amount: item.amount + 1 })) }),
  ]);
  assert.deepEqual(answers.map((a) => a.status), [200, 200]);
  const outcomes = answers.map((a) => a.body).sort((a, b) => b.created - a.created);
  assert.deepEqual(outcomes, [{ received: 300, created: 300, updated: 0, unchanged: 0 }, { received: 300, created: 0, updated: 300, unchanged: 0 }]);
  const rows = await company.server.ctx.db.selectFrom('inbound_items').select((eb) => eb.fn.countAll().as('n')).where('department_id', '=', department).executeTakeFirstOrThrow();
  assert.equal(Number(rows.n), 300);
  assert.deepEqual(await changeTypes(department), { 'revenue_item.created': 300, 'revenue_item.updated': 300 });
});

test('a batch whose first and last keys are new but another is stored creates the new ones and updates the stored one', async () => {
  // A batch with new ends is first tried as a plain insert (on SQLite, its first chunk); the stored key
  // in between fails it, and the upsert stores the batch instead (stored-figures.ts).
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Middle');
  const item = (category: string, amount: number) => ({ departmentId: department, date: '2026-04-11', kind: 'realised', category, amount });
  assert.deepEqual((await postJson<Outcome>(url(), company.token, { items: [item('b', 1), item('d', 4)] })).body, { received: 2, created: 2, updated: 0, unchanged: 0 });
  const stored = await list(`from=2026-04-11&to=2026-04-11&departmentId=${department}`);
  const answer = await postJson<Outcome>(url(), company.token, { items: [item('e', 5), item('b', 2), item('a', 0), item('d', 4)] });
  assert.deepEqual(answer.body, { received: 4, created: 2, updated: 1, unchanged: 1 });
  const after = await list(`from=2026-04-11&to=2026-04-11&departmentId=${department}`);
  assert.deepEqual(after.body.data.map((figure) => [figure.category, figure.amount]).sort(), [['a', 0], ['b', 2], ['d', 4], ['e', 5]]);
  const idOf = (page: typeof stored, category: string) => page.body.data.find((figure) => figure.category === category)?.id;
  assert.equal(idOf(after, 'b'), idOf(stored, 'b'));
  assert.deepEqual(await changeTypes(department), { 'revenue_item.created': 4, 'revenue_item.updated': 1 });
});

test('on SQLite, chunks of new keys are inserted until one holds a stored key; that chunk and the rest are upserted', async () => {
  // 600 items are three statements of 250 on SQLite: the first is inserted as new, the second fails
  // at the stored c400 and is upserted with the third (on PostgreSQL, the whole batch is).
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Chunks');
  const item = (i: number, amount: number) => ({ departmentId: department, date: '2026-04-12', kind: 'realised', category: `c${String(i).padStart(3, '0')}`, amount });
  assert.deepEqual((await postJson<Outcome>(url(), company.token, { items: [item(400, 1), item(410, 2)] })).body, { received: 2, created: 2, updated: 0, unchanged: 0 });
  const stored = await list(`from=2026-04-12&to=2026-04-12&departmentId=${department}`);
  const items = Array.from({ length: 600 }, (_, i) => item(i, i === 400 ? 3 : i === 410 ? 2 : i));
  const answer = await postJson<Outcome>(url(), company.token, { items: items.reverse() });
  assert.deepEqual(answer.body, { received: 600, created: 598, updated: 1, unchanged: 1 });
  const after = await list(`from=2026-04-12&to=2026-04-12&departmentId=${department}&limit=1000`);
  assert.equal(after.body.data.length, 600);
  const byCategory = new Map(after.body.data.map((figure) => [figure.category, figure]));
  assert.deepEqual([399, 400, 401, 410].map((i) => byCategory.get(`c${i}`)?.amount), [399, 3, 401, 2]);
  for (const category of ['c400', 'c410']) assert.equal(byCategory.get(category)?.id, stored.body.data.find((figure) => figure.category === category)?.id);
  assert.deepEqual(await changeTypes(department), { 'revenue_item.created': 600, 'revenue_item.updated': 1 });
});

test('a batch refused with thousands of findings lists every one, in item order, in the problem shape (serialised in slices)', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Many');
  const items = Array.from({ length: 3000 }, (_, i) => ({ departmentId: department, date: '2026-08-20', kind: 'realised', amount: 1, category: `c${i}`, extra: i }));
  const refused = await postJson<ProblemBody & { requestId: string }>(url(), company.token, { items });
  assert.equal(refused.status, 400);
  assert.equal(refused.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.deepEqual(Object.keys(refused.body), ['type', 'title', 'status', 'detail', 'code', 'errors', 'requestId']);
  assert.equal(refused.body.requestId, refused.headers.get('x-request-id'));
  assert.equal(refused.body.errors?.length, 3000);
  assert.deepEqual(refused.body.errors?.map((e) => e.path), items.map((_, i) => `/items/${i}/extra`));
});
