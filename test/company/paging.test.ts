// Keyset paging: walking 2,500 shifts seven at a time finds each exactly once; cursors are opaque
// and bound to their listing and company, so a changed or transplanted one is a 400.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { apiGet, baseDocument, contract, shift, user, walk } from './fixtures.ts';
import type { Page } from '../support/http.ts';

let server: TestServer;
let token: string;
let otherToken: string;
const FROM = '2026-06-01';
const TO = '2026-06-30';
const CONTRACTS = 90;
const CONTRACT_STARTS = ['2025-06-01', '2024-01-01', '2025-01-01', '2024-06-01'];

before(async () => {
  server = await startTestServer({}, { inProcess: true });
  const doc = baseDocument();
  for (let i = 0; i < 30; i++) doc.users.push(user(`u${i}`));
  // 90 contracts on four start dates (some ended), so pages split runs of one startDate and the order
  // falls back on the id.
  for (let i = 0; i < CONTRACTS; i++) {
    doc.contracts.push(contract(`c${i}`, `u${i % 30}`, { startDate: CONTRACT_STARTS[i % CONTRACT_STARTS.length], endDate: i % 7 === 0 ? '2025-12-31' : null }));
  }
  // Many shifts share a date and a start time, so the order must fall back on the id.
  for (let i = 0; i < 2500; i++) {
    const day = String(1 + (i % 30)).padStart(2, '0');
    doc.shifts.push(shift(`s${i}`, `2026-06-${day}`, { start: ['07:00', '09:00', '15:00'][i % 3], end: '23:00', userRef: i % 5 === 0 ? null : `u${i % 30}` }));
  }
  ({ token } = await signedInCompany(server.ctx, { name: 'Busy', data: doc }));
  ({ token: otherToken } = await signedInCompany(server.ctx, { name: 'Other', data: { ...baseDocument(), shifts: [shift('theirs', FROM)] } }));
});
after(() => server.close());

test('walking 2,500 shifts with limit 7 finds each exactly once, in a stable order', async () => {
  const { items, pages } = await walk<{ id: string; date: string; startsAt: string }>(server.baseUrl, token, `/company/timetable?from=${FROM}&to=${TO}&limit=7`);
  assert.equal(pages, Math.ceil(2500 / 7));
  assert.equal(items.length, 2500);
  assert.equal(new Set(items.map((s) => s.id)).size, 2500);
  const sorted = [...items].sort((a, b) => a.date.localeCompare(b.date) || Date.parse(a.startsAt) - Date.parse(b.startsAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  assert.deepEqual(items.map((s) => s.id), sorted.map((s) => s.id));
});

test('the default page is 500 items and the last page has a null nextCursor', async () => {
  const first = await apiGet<Page<unknown>>(server.baseUrl, token, `/company/timetable?from=${FROM}&to=${TO}`);
  assert.equal(first.body.data.length, 500);
  assert.equal(typeof first.body.nextCursor, 'string');
  const all = await apiGet<Page<unknown>>(server.baseUrl, token, `/company/timetable?from=${FROM}&to=${TO}&limit=1000`);
  assert.equal(all.body.data.length, 1000);
  const users = await apiGet<Page<unknown>>(server.baseUrl, token, '/company/users?limit=1000');
  assert.equal(users.body.data.length, 30);
  assert.equal(users.body.nextCursor, null);
});

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byId = (a: { id: string }, b: { id: string }) => compare(a.id, b.id);

test('users and contracts page with cursors too', async () => {
  const { items, pages } = await walk<{ id: string; employeeNumber: string }>(server.baseUrl, token, '/company/users?limit=4');
  assert.equal(pages, 8);
  assert.equal(new Set(items.map((u) => u.id)).size, 30);
  const users = [...items].sort((a, b) => compare(a.employeeNumber, b.employeeNumber) || byId(a, b));
  assert.deepEqual(items.map((u) => u.id), users.map((u) => u.id));
});

test('walking 90 contracts with limit 7 finds each exactly once, ordered by startDate, then id', async () => {
  const all = await walk<{ id: string; startDate: string }>(server.baseUrl, token, '/company/contracts?from=2020-01-01&to=2030-12-31&limit=1000');
  assert.equal(all.pages, 1);
  assert.equal(all.items.length, CONTRACTS);
  const { items, pages } = await walk<{ id: string; startDate: string }>(server.baseUrl, token, '/company/contracts?from=2020-01-01&to=2030-12-31&limit=7');
  assert.equal(pages, Math.ceil(CONTRACTS / 7));
  assert.equal(items.length, CONTRACTS);
  assert.equal(new Set(items.map((c) => c.id)).size, CONTRACTS, 'each contract once');
  assert.deepEqual(new Set(items.map((c) => c.id)), new Set(all.items.map((c) => c.id)), 'every contract');
  const sorted = [...items].sort((a, b) => compare(a.startDate, b.startDate) || byId(a, b));
  assert.deepEqual(items.map((c) => c.id), sorted.map((c) => c.id));
  assert.deepEqual(items.map((c) => c.id), all.items.map((c) => c.id), 'the same order as one page');
  assert.deepEqual([...new Set(items.map((c) => c.startDate))], [...CONTRACT_STARTS].sort());

  // A period narrows the walk the same way: contracts ended in 2025 are left out of 2026.
  const current = await walk<{ id: string; endDate: string | null }>(server.baseUrl, token, '/company/contracts?from=2026-01-01&limit=5');
  assert.equal(current.items.length, CONTRACTS - Math.ceil(CONTRACTS / 7));
  assert.equal(new Set(current.items.map((c) => c.id)).size, current.items.length);
  assert.ok(current.items.every((c) => c.endDate === null));
});

async function firstCursor(): Promise<string> {
  const page = await apiGet<Page<unknown>>(server.baseUrl, token, `/company/timetable?from=${FROM}&to=${TO}&limit=7`);
  return page.body.nextCursor ?? '';
}

test('a tampered cursor is 400 invalid_cursor', async () => {
  const cursor = await firstCursor();
  const [payload = '', mac = ''] = cursor.split('.');
  const forged = Buffer.from(JSON.stringify(['x', ['2026-06-30', 0, 'z']])).toString('base64url');
  for (const bad of [`${payload.slice(0, -1)}${payload.endsWith('A') ? 'B' : 'A'}.${mac}`, `${forged}.${mac}`, 'garbage', `${payload}.`]) {
    const response = await apiGet<{ code: string; errors: Array<{ path: string }> }>(server.baseUrl, token, `/company/timetable?from=${FROM}&to=${TO}&limit=7&cursor=${encodeURIComponent(bad)}`);
    assert.equal(response.status, 400, bad);
    assert.equal(response.body.code, 'invalid_cursor');
    assert.equal(response.body.errors[0]?.path, '/querystring/cursor');
  }
});

test('a cursor only resumes the listing it came from: other filters or another collection are 400', async () => {
  const cursor = encodeURIComponent(await firstCursor());
  for (const path of [`/company/timetable?from=${FROM}&to=2026-06-29&cursor=${cursor}`, `/company/users?cursor=${cursor}`, `/company/contracts?cursor=${cursor}`]) {
    const response = await apiGet<{ code: string }>(server.baseUrl, token, path);
    assert.equal(response.status, 400, path);
    assert.equal(response.body.code, 'invalid_cursor');
  }
  const sameListingOtherLimit = await apiGet(server.baseUrl, token, `/company/timetable?from=${FROM}&to=${TO}&limit=50&cursor=${cursor}`);
  assert.equal(sameListingOtherLimit.status, 200);
});

test('a cursor of another company is 400 for the other company, never a page of its data', async () => {
  const cursor = encodeURIComponent(await firstCursor());
  const response = await apiGet<{ code: string }>(server.baseUrl, otherToken, `/company/timetable?from=${FROM}&to=${TO}&limit=7&cursor=${cursor}`);
  assert.equal(response.status, 400);
  assert.equal(response.body.code, 'invalid_cursor');
});
