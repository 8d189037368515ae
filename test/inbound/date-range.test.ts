// Dates of inbound items are bounded (issue 11): a day from 2000-01-01 to 2099-12-31, a week of the
// years 2000 to 2099. `0000-01-01` and `9999-12-31` were stored as given; no business figure is there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useCompanyServer } from '../support/company.ts';
import { addDepartment } from '../timeclock/fixtures.ts';
import { postJson, type ProblemBody } from '../support/http.ts';

const company = useCompanyServer({ name: 'Orchard', inProcess: true });

const streams = [
  { path: '/api/v1/company/revenue', item: { kind: 'realised', amount: 1 } },
  { path: '/api/v1/company/wage-budget', item: { amount: 1 } },
];

test('a date or week outside 2000..2099 is 400 validation_failed naming the field; the bounds themselves are fine', async () => {
  const departmentId = await addDepartment(company.server.ctx.db, company.tenant.companyId);
  for (const { path, item } of streams) {
    const url = `${company.server.baseUrl}${path}`;
    const outside = [{ date: '0000-01-01' }, { date: '9999-12-31' }, { date: '1999-12-31' }, { date: '2100-01-01' }, { week: '9999-W01' }, { week: '1999-W52' }];
    const refused = await postJson<ProblemBody>(url, company.token, { items: outside.map((period) => ({ departmentId, ...period, ...item })) });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.code, 'validation_failed');
    assert.deepEqual(refused.body.errors?.map((e) => e.path), ['/items/0/date', '/items/1/date', '/items/2/date', '/items/3/date', '/items/4/week', '/items/5/week']);
    assert.match(refused.body.errors?.[0]?.message ?? '', /2000-01-01.*2099-12-31/);
    const inside = [{ date: '2000-01-01' }, { date: '2099-12-31' }, { week: '2000-W01' }, { week: '2099-W52' }];
    const stored = await postJson<{ created: number }>(url, company.token, { items: inside.map((period) => ({ departmentId, ...period, ...item })) });
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.created, 4);
  }
});

test('the OpenAPI document states the bounds in the item schemas', async () => {
  const document = (await (await company.server.fetch(`${company.server.baseUrl}/openapi.json`)).json()) as Record<string, unknown>;
  const text = JSON.stringify(document);
  assert.ok(text.includes('^20\\\\d{2}-\\\\d{2}-\\\\d{2}$'), 'date pattern in the document');
  assert.ok(text.includes('2000-01-01 to 2099-12-31'), 'the bounds in words');
});
