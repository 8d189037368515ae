// client.changes.follow: pages while changes are there, long-polls when none are, and hands back a
// cursor that resumes exactly after what was applied.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCompanyServer, type CompanyServer } from '../support/company.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { WfsClient, type Change } from '../../packages/client/src/index.ts';

let shop: CompanyServer;
let client: WfsClient;
const staff = (refs: string[]) => ({
  departments: [{ ref: 'till', name: 'Till', code: 'TIL' }],
  users: refs.map((ref) => ({ ref, employeeNumber: ref, firstName: ref, lastName: 'Last', email: null, employmentStart: '2020-01-01', employmentEnd: null, departmentRefs: ['till'], badgeId: null })),
});

before(async () => {
  shop = await startCompanyServer({ name: 'Follower', data: staff(['a', 'b', 'c']) });
  client = new WfsClient({ baseUrl: shop.server.baseUrl, refreshToken: shop.refreshToken });
});
after(() => shop.server.close());

test('follow pages through the log, then waits for the next commit; its cursor resumes after what was applied', async () => {
  const seen: Change[] = [];
  let saved = '';
  const stop = new AbortController();
  for await (const { changes, cursor } of client.changes.follow({ limit: 2, wait: 5, signal: stop.signal })) {
    seen.push(...changes);
    saved = cursor;
    if (seen.length === 4) break;
  }
  assert.deepEqual(seen.map((c) => c.type), ['department.created', 'user.created', 'user.created', 'user.created']);

  // Resuming from the saved cursor: nothing until the next import, which the long poll answers at once.
  const later = setTimeout(() => void importCompanyData(shop.server.ctx.db, shop.tenant.companyId, staff(['a', 'b', 'c', 'd'])), 300);
  const started = performance.now();
  for await (const { changes } of client.changes.follow({ cursor: saved, wait: 10 })) {
    if (changes.length === 0) continue;
    assert.deepEqual(changes.map((c) => [c.type, (c.data as { employeeNumber: string }).employeeNumber]), [['user.created', 'd']]);
    break;
  }
  clearTimeout(later);
  assert.ok(performance.now() - started < 3000);
  assert.equal(typeof (await client.changes.head()), 'string');
});
