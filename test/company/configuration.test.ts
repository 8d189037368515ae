// getConfiguration (contract: secured company API): the token's company and its departments, positions, shift types and
// contract types, each list ordered by name, then id; the company's time zone spelled as its canonical name where it differs only by case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { useTestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { bearer } from '../support/tenants.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { createCompany, createOrganisation } from '../../src/iam/provisioning.ts';
import type { Configuration } from '../../src/company/configuration.ts';
import { apiGet, baseDocument, contract, shift, user } from './fixtures.ts';

const server = useTestServer({}, { inProcess: true });

test('getConfiguration returns the token company with its (empty) entity lists', async () => {
  const { tenant, token } = await signedInCompany(server.ctx, { name: 'Bakery' });
  const response = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { company: { id: string; name: string; timezone: string } };
  assert.deepEqual(body, {
    company: { id: tenant.companyId, name: 'Bakery', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' },
    departments: [],
    positions: [],
    shiftTypes: [],
    contractTypes: [],
  });
});

test('getConfiguration without a token is 401 problem+json with a bare Bearer challenge', async () => {
  const response = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`);
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), 'Bearer');
  assert.match(response.headers.get('content-type') ?? '', /application\/problem\+json/);
  const body = (await response.json()) as { code: string; requestId: string };
  assert.equal(body.code, 'missing_token');
  assert.equal(body.requestId, response.headers.get('x-request-id'));
});

test('another scheme than Bearer counts as no token; a malformed Bearer value is an invalid token', async () => {
  for (const authorization of ['Basic dXNlcjpwYXNz', 'Token abc.def.ghi']) {
    const response = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: { authorization } });
    assert.equal(response.status, 401, authorization);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assert.equal(((await response.json()) as { code: string }).code, 'missing_token');
  }
  for (const authorization of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer ä']) {
    const response = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: { authorization } });
    assert.equal(response.status, 401, authorization);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    assert.equal(((await response.json()) as { code: string }).code, 'invalid_token');
  }
});

test('a refresh token is refused on a secured route', async () => {
  const { refreshToken } = await signedInCompany(server.ctx);
  const response = await server.fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(refreshToken) });
  assert.equal(response.status, 401);
  assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  assert.equal(((await response.json()) as { code: string }).code, 'invalid_token');
});

test('a time zone differing from its canonical spelling only by case takes that spelling; a link or older name stays as typed', async () => {
  const cases = [
    ['europe/amsterdam', 'Europe/Amsterdam'],
    ['EUROPE/LONDON', 'Europe/London'],
    ['pacific/kiritimati', 'Pacific/Kiritimati'],
    ['America/New_York', 'America/New_York'],
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['Etc/UTC', 'Etc/UTC'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['US/Pacific', 'US/Pacific'],
    ['us/pacific', 'America/Los_Angeles'],
    ['gmt', 'UTC'],
  ] as const;
  for (const [typed, canonical] of cases) {
    const { tenant, token } = await signedInCompany(server.ctx, { name: typed, timezone: typed });
    const stored = await server.ctx.db.selectFrom('companies').select('timezone').where('id', '=', tenant.companyId).executeTakeFirstOrThrow();
    assert.equal(stored.timezone, canonical, typed);
    const response = await apiGet<Configuration>(server.baseUrl, token, '/company/configuration');
    assert.equal(response.body.company.timezone, canonical, typed);
  }
});

test('a time zone that is no IANA zone name is refused at /timezone', async () => {
  const { organisationId } = await createOrganisation(server.ctx.db, { name: 'Zones' });
  for (const timezone of ['Mars/Olympus', '+01:00', 'UTC+1', '']) {
    await assert.rejects(createCompany(server.ctx.db, { organisationId, name: 'Nowhere', timezone, currency: 'EUR' }), (error: { code: string; errors: Array<{ path: string }> }) => {
      assert.equal(error.code, 'validation_failed', timezone);
      assert.deepEqual(error.errors.map((e) => e.path), ['/timezone'], timezone);
      return true;
    });
  }
});

/** Every section, listed out of name order, with two positions of the same name. */
function fullDocument() {
  const doc = baseDocument();
  doc.departments.push({ ref: 'bar', name: 'Bar', code: 'BAR' });
  doc.positions.push({ ref: 'z-runner', name: 'Runner', departmentRef: 'floor' }, { ref: 'a-runner', name: 'Runner', departmentRef: 'kitchen' }, { ref: 'barista', name: 'Barista', departmentRef: 'bar' });
  doc.shiftTypes.push({ ref: 'leave', name: 'Leave', category: 'absence', paid: false });
  doc.contractTypes.push({ ref: 'fixed', name: 'Fixed term' }, { ref: 'on-call', name: 'On call' });
  doc.users.push(user('ann'));
  doc.contracts.push(contract('ann-1', 'ann', { contractTypeRef: 'fixed' }));
  doc.shifts.push(shift('s1', '2026-06-01', { userRef: 'ann', shiftTypeRef: 'leave' }));
  return doc;
}

async function idsByRef(companyId: string, table: 'departments' | 'positions' | 'shift_types' | 'contract_types'): Promise<Map<string, string>> {
  const rows = await server.ctx.db.selectFrom(table).select(['ref', 'id']).where('company_id', '=', companyId).execute();
  return new Map(rows.map((row) => [row.ref, row.id]));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byNameThenId = (a: { name: unknown; id: string }, b: { name: unknown; id: string }) => compare(String(a.name), String(b.name)) || compare(a.id, b.id);

test('getConfiguration answers every entity of an imported document, each list ordered by name, then id', async () => {
  const { tenant, token } = await signedInCompany(server.ctx, { name: 'Brasserie' });
  const doc = fullDocument();
  // z-runner is stored first, so its id sorts before a-runner's although its ref sorts after.
  await importCompanyData(server.ctx.db, tenant.companyId, { departments: doc.departments, positions: doc.positions.filter((p) => p.ref === 'z-runner') });
  await sleep(5);
  await importCompanyData(server.ctx.db, tenant.companyId, doc);
  const departments = await idsByRef(tenant.companyId, 'departments');
  const positions = await idsByRef(tenant.companyId, 'positions');
  const shiftTypes = await idsByRef(tenant.companyId, 'shift_types');
  const contractTypes = await idsByRef(tenant.companyId, 'contract_types');
  assert.ok((positions.get('z-runner') ?? '') < (positions.get('a-runner') ?? ''));
  const id = (ids: Map<string, string>, ref: unknown) => ids.get(String(ref)) ?? assert.fail(`no id for ${String(ref)}`);

  const response = await apiGet<Configuration>(server.baseUrl, token, '/company/configuration');
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, {
    company: { id: tenant.companyId, name: 'Brasserie', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' },
    departments: doc.departments.map((d) => ({ id: id(departments, d.ref), name: d.name, code: d.code })).sort(byNameThenId),
    positions: doc.positions.map((p) => ({ id: id(positions, p.ref), name: p.name, departmentId: id(departments, p.departmentRef) })).sort(byNameThenId),
    shiftTypes: doc.shiftTypes.map((s) => ({ id: id(shiftTypes, s.ref), name: s.name, category: s.category, paid: s.paid })).sort(byNameThenId),
    contractTypes: doc.contractTypes.map((c) => ({ id: id(contractTypes, c.ref), name: c.name })).sort(byNameThenId),
  });
  // The documented order, spelled out.
  assert.deepEqual(response.body.departments.map((d) => d.code), ['BAR', 'FLR', 'KIT']);
  assert.deepEqual(response.body.positions.map((p) => p.id), ['barista', 'cook', 'z-runner', 'a-runner', 'waiter'].map((ref) => id(positions, ref)));
  assert.deepEqual(response.body.shiftTypes.map((s) => [s.name, s.category, s.paid]), [
    ['Available', 'availability', false],
    ['Leave', 'absence', false],
    ['Shift', 'work', true],
    ['Sick', 'absence', true],
    ['Standby', 'relief', true],
  ]);
  assert.deepEqual(response.body.contractTypes.map((c) => c.name), ['Fixed term', 'On call', 'Permanent']);
});
