// The period rules of the contract's secured company API, at their boundaries: users active-or-future by default, contracts
// active today, the timetable by shift date (at most 92 days), and the parameters that are refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { apiGet, baseDocument, contract, dayFromToday, shift, user } from './fixtures.ts';
import type { Page } from '../support/http.ts';

let server: TestServer;
let token: string;
const ids = new Map<string, string>();
const T = (days: number) => dayFromToday(days);

before(async () => {
  server = await startTestServer({}, { inProcess: true });
  const doc = baseDocument();
  doc.users.push(
    user('ended-yesterday', { employmentEnd: T(-1) }),
    user('ends-today', { employmentEnd: T(0) }),
    user('starts-tomorrow', { employmentStart: T(1) }),
    user('open', {}),
  );
  doc.contracts.push(
    contract('c-ended-yesterday', 'open', { endDate: T(-1) }),
    contract('c-ends-today', 'open', { endDate: T(0) }),
    contract('c-starts-tomorrow', 'starts-tomorrow', { startDate: T(1) }),
    contract('c-open', 'open', { wage: { amount: 3125.5, currency: 'EUR', period: 'month' }, hoursPerWeek: 37.5, daysPerWeek: 4.5 }),
  );
  doc.shifts.push(
    shift('s-before', T(-2)),
    shift('s-from', T(-1)),
    shift('s-today', T(0), { userRef: 'open' }),
    shift('s-to', T(1)),
    shift('s-after', T(2)),
  );
  const company = await signedInCompany(server.ctx, { name: 'Periods', data: doc });
  const tenant = company.tenant;
  token = company.token;
  for (const table of ['employees', 'contracts', 'shifts'] as const) {
    for (const row of await server.ctx.db.selectFrom(table).select(['id', 'ref']).where('company_id', '=', tenant.companyId).execute()) ids.set(row.id, row.ref);
  }
});
after(() => server.close());

async function refs(path: string): Promise<string[]> {
  const response = await apiGet<Page<{ id: string }>>(server.baseUrl, token, path);
  assert.equal(response.status, 200, response.text);
  return response.body.data.map((item) => ids.get(item.id) ?? item.id).sort();
}

test('users: by default those employed today or later — not one whose employment ended yesterday', async () => {
  assert.deepEqual(await refs('/company/users'), ['ends-today', 'open', 'starts-tomorrow']);
});

test('users: with from/to, every employment overlapping the period, boundaries included', async () => {
  assert.deepEqual(await refs(`/company/users?from=${T(-1)}&to=${T(-1)}`), ['ended-yesterday', 'ends-today', 'open']);
  assert.deepEqual(await refs(`/company/users?from=${T(1)}&to=${T(30)}`), ['open', 'starts-tomorrow']);
  assert.deepEqual(await refs(`/company/users?from=${T(-400)}&to=${T(400)}`), ['ended-yesterday', 'ends-today', 'open', 'starts-tomorrow']);
});

test('users: a period ending the day before an employment starts leaves it out; one reaching its first day takes it in', async () => {
  assert.deepEqual(await refs(`/company/users?from=${T(-1)}&to=${T(0)}`), ['ended-yesterday', 'ends-today', 'open']);
  assert.deepEqual(await refs(`/company/users?from=${T(-1)}&to=${T(1)}`), ['ended-yesterday', 'ends-today', 'open', 'starts-tomorrow']);
  assert.deepEqual(await refs(`/company/users?from=${T(1)}&to=${T(1)}`), ['open', 'starts-tomorrow'], 'the day after ends-today ended');
});

test('users: items carry the documented fields', async () => {
  const response = await apiGet<Page<Record<string, unknown>>>(server.baseUrl, token, '/company/users');
  const item = response.body.data.find((u) => ids.get(u.id as string) === 'ends-today');
  assert.ok(item);
  assert.deepEqual(Object.keys(item).sort(), ['departmentIds', 'email', 'employeeNumber', 'employmentEnd', 'employmentStart', 'firstName', 'id', 'lastName', 'positionIds', 'timeclockActive', 'updatedAt']);
  assert.equal(item.employeeNumber, 'E-ends-today');
  assert.equal(item.employmentEnd, T(0));
  assert.equal(item.employmentStart, '2020-01-01');
  assert.equal(item.timeclockActive, false);
  assert.match(item.updatedAt as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+0[12]:00$/);
  assert.equal((item.departmentIds as string[]).length, 1);
});

test('contracts: by default active today — one ending today is in, one ended yesterday or starting tomorrow is not', async () => {
  assert.deepEqual(await refs('/company/contracts'), ['c-ends-today', 'c-open']);
});

test('contracts: with from/to, those overlapping the period', async () => {
  assert.deepEqual(await refs(`/company/contracts?from=${T(1)}&to=${T(1)}`), ['c-open', 'c-starts-tomorrow']);
  assert.deepEqual(await refs(`/company/contracts?from=${T(-1)}&to=${T(0)}`), ['c-ended-yesterday', 'c-ends-today', 'c-open']);
});

test('contracts: wage as a decimal amount with currency and period; hours and days as numbers', async () => {
  const response = await apiGet<Page<Record<string, unknown>>>(server.baseUrl, token, '/company/contracts');
  const open = response.body.data.find((c) => ids.get(c.id as string) === 'c-open');
  assert.ok(open);
  assert.deepEqual(open.wage, { amount: 3125.5, currency: 'EUR', period: 'month' });
  assert.equal(open.hoursPerWeek, 37.5);
  assert.equal(open.daysPerWeek, 4.5);
  assert.equal(open.endDate, null);
  const hourly = response.body.data.find((c) => ids.get(c.id as string) === 'c-ends-today');
  assert.deepEqual(hourly?.wage, { amount: 15.25, currency: 'EUR', period: 'hour' });
});

test('timetable: today by default; with from/to, shifts dated from..to inclusive (a shift on `to` is in)', async () => {
  assert.deepEqual(await refs('/company/timetable'), ['s-today']);
  assert.deepEqual(await refs(`/company/timetable?from=${T(-1)}&to=${T(1)}`), ['s-from', 's-to', 's-today']);
  assert.deepEqual(await refs(`/company/timetable?from=${T(1)}`), ['s-to']);
});

test('timetable: 92 days is the longest period; 93 is 400 period_too_long', async () => {
  const ok = await apiGet(server.baseUrl, token, `/company/timetable?from=${T(-10)}&to=${T(81)}`);
  assert.equal(ok.status, 200);
  const tooLong = await apiGet<{ code: string; errors: Array<{ path: string }> }>(server.baseUrl, token, `/company/timetable?from=${T(-10)}&to=${T(82)}`);
  assert.equal(tooLong.status, 400);
  assert.equal(tooLong.body.code, 'period_too_long');
  assert.equal(tooLong.body.errors[0]?.path, '/querystring/to');
});

test('from after to is 400 invalid_period on every collection', async () => {
  for (const path of ['/company/users', '/company/contracts', '/company/timetable']) {
    const response = await apiGet<{ code: string; errors: Array<{ path: string }> }>(server.baseUrl, token, `${path}?from=${T(1)}&to=${T(0)}`);
    assert.equal(response.status, 400, path);
    assert.equal(response.body.code, 'invalid_period');
    assert.deepEqual(response.body.errors.map((e) => e.path), ['/querystring/from']);
    assert.match(response.headers.get('content-type') ?? '', /application\/problem\+json/);
  }
});

test('bad values are 400 naming the parameter the same way whoever finds them: from=garbage, an impossible date, a limit out of range or not written as a whole number', async () => {
  const cases: Array<[string, string]> = [
    ['/company/users?from=garbage', '/querystring/from'],
    ['/company/contracts?to=2026-02-30', '/querystring/to'],
    ['/company/timetable?limit=0', '/querystring/limit'],
    ['/company/timetable?limit=1001', '/querystring/limit'],
    ['/company/users?limit=ten', '/querystring/limit'],
    ...['0x10', '1e2', '010', '0b11', '%207', '7%20', '7.0', '-1', ''].map((limit): [string, string] => [`/company/users?limit=${limit}`, '/querystring/limit']),
  ];
  for (const [path, field] of cases) {
    const response = await apiGet<{ errors: Array<{ path: string }> }>(server.baseUrl, token, path);
    assert.equal(response.status, 400, path);
    assert.equal(response.body.errors[0]?.path, field, path);
  }
});

test('a miswritten integer does not hide the other problems of the query', async () => {
  const response = await apiGet<{ errors: Array<{ path: string; message: string }> }>(server.baseUrl, token, `/company/users?limit=0x10&form=${T(0)}`);
  assert.equal(response.status, 400);
  assert.deepEqual(response.body.errors, [
    { path: '/querystring/limit', message: 'must be integer' },
    { path: '/querystring/form', message: 'unknown query parameter "form"' },
  ]);
});

test('an unknown query parameter is 400 naming it (form= instead of from=)', async () => {
  for (const path of ['/company/users', '/company/contracts', '/company/timetable', '/feeds/timetable', '/company/configuration']) {
    const response = await apiGet<{ code: string; detail: string; errors: Array<{ path: string; message: string }> }>(server.baseUrl, token, `${path}?form=${T(0)}`);
    assert.equal(response.status, 400, path);
    assert.deepEqual(response.body.errors, [{ path: '/querystring/form', message: 'unknown query parameter "form"' }]);
    assert.match(response.body.detail, /form/);
  }
});
