// Import-derived responses are cached by the company's data version: an import that changes data is
// seen by the very next request (from this process, the CLI or another instance), an import that
// changes nothing keeps the cached body and its ETag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importCompanyData } from '../../src/company/import.ts';
import { useCompanyServer } from '../support/company.ts';
import { getJson, type Page } from '../support/http.ts';
import { baseDocument, user } from './fixtures.ts';

const company = useCompanyServer({ data: baseDocument(), inProcess: true });

interface Configuration {
  departments: { name: string }[];
}

test('a changing import is visible at once in the configuration, the collections and the feed', async () => {
  const base = `${company.server.baseUrl}/api/v1`;
  const before = await getJson<Configuration>(`${base}/company/configuration`, company.token);
  const usersBefore = await getJson<Page<unknown>>(`${base}/company/users`, company.token);
  assert.deepEqual(before.body.departments.map((d) => d.name), ['Floor', 'Kitchen']);

  const document = baseDocument();
  document.departments.push({ ref: 'bar', name: 'Bar', code: 'BAR' });
  document.users.push(user('ann'));
  await importCompanyData(company.server.ctx.db, company.tenant.companyId, document);

  const after = await getJson<Configuration>(`${base}/company/configuration`, company.token, { 'if-none-match': before.headers.get('etag') ?? '' });
  assert.equal(after.status, 200, 'the old ETag no longer matches');
  assert.deepEqual(after.body.departments.map((d) => d.name), ['Bar', 'Floor', 'Kitchen']);
  const usersAfter = await getJson<Page<unknown>>(`${base}/company/users`, company.token);
  assert.equal(usersAfter.body.data.length, usersBefore.body.data.length + 1);
});

test('an import that changes nothing keeps the cached body and its ETag', async () => {
  const url = `${company.server.baseUrl}/api/v1/company/configuration`;
  const first = await getJson<Configuration>(url, company.token);
  const document = baseDocument();
  document.departments.push({ ref: 'bar', name: 'Bar', code: 'BAR' });
  document.users.push(user('ann'));
  const counts = await importCompanyData(company.server.ctx.db, company.tenant.companyId, document);
  assert.ok(Object.values(counts).every((c) => c.created + c.updated + c.deleted === 0), JSON.stringify(counts));
  const again = await getJson<Configuration>(url, company.token, { 'if-none-match': first.headers.get('etag') ?? '' });
  assert.equal(again.status, 304);
});
