// getCompanyContracts item by item (contract: secured company API, "Contracts"): exactly the documented fields, each with
// the value the import document gave it — ids resolved from the document's refs, an open end and a
// missing department or position as null, decimals exact, the wage currency defaulting to the company's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCompanyServer, type CompanyServer } from '../support/company.ts';
import type { Page } from '../support/http.ts';
import type { Configuration } from '../../src/company/configuration.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { apiGet, baseDocument, contract, user } from './fixtures.ts';

interface ContractItem {
  id: string;
  userId: string;
  contractTypeId: string;
  startDate: string;
  endDate: string | null;
  hoursPerWeek: number;
  daysPerWeek: number;
  wage: { amount: number; currency: string; period: string };
  departmentId: string | null;
  positionId: string | null;
  updatedAt: string;
}

const IMPORTED_AT = Date.parse('2026-03-01T12:00:00Z');

function document() {
  const doc = baseDocument();
  doc.contractTypes.push({ ref: 'on-call', name: 'On call' });
  doc.users.push(user('ann'), user('bob'));
  doc.contracts.push(
    contract('ann-1', 'ann', { startDate: '2024-01-01', endDate: '2024-12-31', hoursPerWeek: 37.5, daysPerWeek: 4.5, wage: { amount: 15.25, currency: 'EUR', period: 'hour' } }),
    contract('ann-2', 'ann', { contractTypeRef: 'on-call', startDate: '2025-01-01', hoursPerWeek: 12, daysPerWeek: 2, wage: { amount: 3125.5, currency: 'USD', period: 'month' }, departmentRef: 'floor', positionRef: null }),
    contract('bob-1', 'bob', { startDate: '2024-06-01', hoursPerWeek: 0.25, daysPerWeek: 0.5, wage: { amount: 14, period: 'hour' }, departmentRef: null, positionRef: null }),
  );
  return doc;
}

let company: CompanyServer;
before(async () => {
  company = await startCompanyServer({ name: 'Contract Co', inProcess: true });
  await importCompanyData(company.server.ctx.db, company.tenant.companyId, document(), IMPORTED_AT);
});
after(() => company.server.close());

async function ids() {
  const { body: configuration } = await apiGet<Configuration>(company.server.baseUrl, company.token, '/company/configuration');
  const { body: users } = await apiGet<Page<{ id: string; employeeNumber: string }>>(company.server.baseUrl, company.token, '/company/users?from=2000-01-01&to=2100-01-01');
  const find = <T extends { id: string }>(items: T[], match: (item: T) => boolean) => items.find(match)?.id ?? assert.fail('not in the listing');
  return {
    ann: find(users.data, (u) => u.employeeNumber === 'E-ann'),
    bob: find(users.data, (u) => u.employeeNumber === 'E-bob'),
    permanent: find(configuration.contractTypes, (c) => c.name === 'Permanent'),
    onCall: find(configuration.contractTypes, (c) => c.name === 'On call'),
    kitchen: find(configuration.departments, (d) => d.code === 'KIT'),
    floor: find(configuration.departments, (d) => d.code === 'FLR'),
    cook: find(configuration.positions, (p) => p.name === 'Cook'),
  };
}

test('a contract item has exactly the documented fields, each with its imported value', async () => {
  const id = await ids();
  const response = await apiGet<Page<ContractItem>>(company.server.baseUrl, company.token, '/company/contracts?from=2000-01-01&to=2100-01-01');
  assert.equal(response.status, 200);
  const items = response.body.data;
  for (const item of items) {
    assert.deepEqual(Object.keys(item).sort(), ['contractTypeId', 'daysPerWeek', 'departmentId', 'endDate', 'hoursPerWeek', 'id', 'positionId', 'startDate', 'updatedAt', 'userId', 'wage']);
    assert.deepEqual(Object.keys(item.wage).sort(), ['amount', 'currency', 'period']);
    assert.match(item.id, /^\S+$/);
  }
  assert.equal(new Set(items.map((c) => c.id)).size, 3);
  const updatedAt = '2026-03-01T13:00:00+01:00';
  assert.deepEqual(items.map(({ id: _id, ...fields }) => fields), [
    { userId: id.ann, contractTypeId: id.permanent, startDate: '2024-01-01', endDate: '2024-12-31', hoursPerWeek: 37.5, daysPerWeek: 4.5, wage: { amount: 15.25, currency: 'EUR', period: 'hour' }, departmentId: id.kitchen, positionId: id.cook, updatedAt },
    { userId: id.bob, contractTypeId: id.permanent, startDate: '2024-06-01', endDate: null, hoursPerWeek: 0.25, daysPerWeek: 0.5, wage: { amount: 14, currency: 'EUR', period: 'hour' }, departmentId: null, positionId: null, updatedAt },
    { userId: id.ann, contractTypeId: id.onCall, startDate: '2025-01-01', endDate: null, hoursPerWeek: 12, daysPerWeek: 2, wage: { amount: 3125.5, currency: 'USD', period: 'month' }, departmentId: id.floor, positionId: null, updatedAt },
  ]);
});

test('a period keeps the contracts overlapping it: an end date is the last day, an open end never ends', async () => {
  const list = async (query: string) => {
    const response = await apiGet<Page<ContractItem>>(company.server.baseUrl, company.token, `/company/contracts?${query}`);
    assert.equal(response.status, 200, query);
    return response.body.data.map((c) => [c.startDate, c.endDate]);
  };
  assert.deepEqual(await list('from=2024-12-31'), [['2024-01-01', '2024-12-31'], ['2024-06-01', null]]);
  assert.deepEqual(await list('from=2025-01-01'), [['2024-06-01', null], ['2025-01-01', null]]);
  assert.deepEqual(await list('from=2023-01-01&to=2024-05-31'), [['2024-01-01', '2024-12-31']]);
  assert.deepEqual(await list('from=2099-01-01'), [['2024-06-01', null], ['2025-01-01', null]]);
});
