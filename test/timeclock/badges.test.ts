import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany, type SignedInCompany } from '../support/company.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { addEmployee } from './fixtures.ts';
import { getJson, postJson, type Page, type ProblemBody } from '../support/http.ts';

interface Badge {
  id: string;
  badgeId: string;
  userId: string;
  companyId: string;
  employeeNumber: string;
  displayName: string;
  activatedAt: string | null;
  updatedAt: string;
}

let server: TestServer;
let north: SignedInCompany;
let south: Tenant;
let stranger: SignedInCompany;

before(async () => {
  server = await startTestServer({}, { inProcess: true });
  north = await signedInCompany(server.ctx, { name: 'North', timezone: 'Europe/Amsterdam' });
  south = await provisionTenant(server.ctx, { name: 'South', organisationId: north.tenant.organisationId, timezone: 'Europe/Lisbon' });
  stranger = await signedInCompany(server.ctx, { name: 'Stranger' });
});
after(() => server.close());

const badges = (query: string, bearer = north.token) => getJson<Page<Badge> & ProblemBody>(`${server.baseUrl}/api/v1/timeclock/badges${query}`, bearer);

test('badges cover every company of the organisation, only active timeclocks with a badge, narrowed by companyId', async () => {
  const activatedAt = Date.UTC(2026, 5, 1, 7, 30);
  const ada = await addEmployee(server.ctx.db, north.tenant, { badgeId: 'A-001', firstName: 'Ada', lastName: 'Lovelace', employeeNumber: '1001', activatedAt });
  const bob = await addEmployee(server.ctx.db, south, { badgeId: 'A-002', firstName: 'Bob', lastName: 'Marley', employeeNumber: '2001', activatedAt });
  await addEmployee(server.ctx.db, north.tenant, { badgeId: 'A-003', timeclockActive: false });
  await addEmployee(server.ctx.db, north.tenant, { badgeId: null });
  await addEmployee(server.ctx.db, stranger.tenant, { badgeId: 'A-000' });

  const all = await badges('');
  assert.equal(all.status, 200);
  assert.ok(all.headers.get('etag'));
  assert.deepEqual(all.body.data.map(({ updatedAt: _u, ...badge }) => badge), [
    { id: 'A-001', badgeId: 'A-001', userId: ada.id, companyId: north.tenant.companyId, employeeNumber: '1001', displayName: 'Ada Lovelace', activatedAt: '2026-06-01T09:30:00+02:00' },
    { id: 'A-002', badgeId: 'A-002', userId: bob.id, companyId: south.companyId, employeeNumber: '2001', displayName: 'Bob Marley', activatedAt: '2026-06-01T08:30:00+01:00' },
  ]);
  assert.equal(all.body.nextCursor, null);
  const unchanged = await server.fetch(`${server.baseUrl}/api/v1/timeclock/badges`, { headers: { authorization: `Bearer ${north.token}`, 'if-none-match': all.headers.get('etag') ?? '' } });
  assert.equal(unchanged.status, 304);
  assert.equal(await unchanged.text(), '');

  assert.deepEqual((await badges(`?companyId=${south.companyId}`)).body.data.map((b) => b.badgeId), ['A-002']);
  const page = await badges('?limit=1');
  assert.deepEqual(page.body.data.map((b) => b.badgeId), ['A-001']);
  const next = await badges(`?limit=1&cursor=${encodeURIComponent(page.body.nextCursor ?? '')}`);
  assert.deepEqual(next.body.data.map((b) => b.badgeId), ['A-002']);
  assert.equal((await badges(`?limit=1&companyId=${north.tenant.companyId}&cursor=${encodeURIComponent(page.body.nextCursor ?? '')}`)).status, 400, 'a cursor is bound to its filters');

  const outside = await badges(`?companyId=${stranger.tenant.companyId}`);
  assert.equal(outside.status, 404);
  assert.equal(outside.body.code, 'not_found');
  assert.deepEqual((await badges('', stranger.token)).body.data.map((b) => b.badgeId), ['A-000']);
  assert.equal((await badges('?company=x')).status, 400);
});

test('another organisation\'s badge, user and company are out of reach for events, and its events for the read-back', async () => {
  const theirs = await addEmployee(server.ctx.db, stranger.tenant, { badgeId: 'S-1' });
  const ours = await addEmployee(server.ctx.db, south, { badgeId: 'S-2' });
  const url = `${server.baseUrl}/api/v1/timeclock/events`;
  const occurredAt = new Date(Date.now() - 1000).toISOString();
  const base = { type: 'clock_in', occurredAt, source: 'terminal' };
  for (const who of [{ badgeId: 'S-1' }, { userId: theirs.id }, { badgeId: 'S-2', companyId: stranger.tenant.companyId }]) {
    const response = await postJson<ProblemBody>(url, north.token, { eventId: randomUUID(), ...base, ...who });
    assert.equal(response.status, 404, JSON.stringify(who));
  }
  // A terminal of the organisation punches for a sibling company's employee.
  const eventId = randomUUID();
  assert.equal((await postJson<ProblemBody>(url, north.token, { eventId, ...base, badgeId: 'S-2' })).status, 200);
  assert.equal((await postJson<ProblemBody>(url, stranger.token, { eventId, ...base, badgeId: 'S-1' })).status, 200, 'eventIds are per organisation');

  const mine = await getJson<Page<{ userId: string }>>(url, north.token);
  assert.deepEqual(mine.body.data.map((e) => e.userId), [ours.id]);
  const theirsRead = await getJson<Page<{ userId: string }>>(`${url}?userId=${ours.id}`, stranger.token);
  assert.deepEqual(theirsRead.body.data, []);
  assert.equal((await getJson<ProblemBody>(`${url}?companyId=${north.tenant.companyId}`, stranger.token)).status, 404);
});
