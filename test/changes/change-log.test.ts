// The change log (CONTRACT §7): every write path records its changes in its own transaction, each
// once and in order, with the resource as its collection shows it, and tombstones for what is gone.
// Following the log from the start rebuilds exactly what the collections answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { useCompanyServer, signedInCompany } from '../support/company.ts';
import { importCompanyData } from '../../src/company/import.ts';
import type { Change } from '../../src/changes/change-log.ts';
import { readChangeWindow, changesBetween } from '../../src/changes/change-reads.ts';
import { apiGet, baseDocument, contract, shift, user, walk } from '../company/fixtures.ts';
import { postJson } from '../support/http.ts';
import { addDepartment, addEmployee } from '../timeclock/fixtures.ts';

const company = useCompanyServer({ name: 'Changes', timezone: 'Europe/Amsterdam', inProcess: true });
const db = () => company.server.ctx.db;

async function everyChange(companyId = company.tenant.companyId, afterSeq = 0): Promise<Change[]> {
  const all: Change[] = [];
  for (;;) {
    const page = (await readChangeWindow(db(), companyId, { afterSeq: all.at(-1)?.seq ?? afterSeq, limit: 7 })).changes;
    if (page.length === 0) return all;
    all.push(...page);
  }
}

/** The latest data of every resource of `resourceType`, applying the log in order (tombstones remove). */
function rebuild(changes: Change[], resourceType: string): Map<string, unknown> {
  const state = new Map<string, unknown>();
  for (const change of changes) {
    if (change.resourceType !== resourceType) continue;
    if (change.deleted) state.delete(change.resourceId);
    else state.set(change.resourceId, change.data);
  }
  return state;
}

function byId<T extends { id: string }>(items: T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

function document() {
  const doc = baseDocument();
  doc.users = [user('ann'), user('bob', { departmentRefs: ['floor'], positionRefs: ['waiter'] })];
  doc.contracts = [contract('c-ann', 'ann'), contract('c-bob', 'bob', { departmentRef: 'floor', positionRef: 'waiter' })];
  doc.shifts = [shift('s1', '2026-06-01', { userRef: 'ann' }), shift('s2', '2026-06-02', { userRef: 'bob' }), shift('s3', '2026-06-03')];
  return doc;
}

async function assertLogMatchesCollections(changes: Change[]): Promise<void> {
  const { baseUrl } = company.server;
  const { token } = company;
  const users = await walk<{ id: string }>(baseUrl, token, '/company/users?from=2000-01-01&to=2100-12-31&limit=1');
  assert.deepEqual(rebuild(changes, 'user'), byId(users.items));
  const contracts = await walk<{ id: string }>(baseUrl, token, '/company/contracts?from=2000-01-01&to=2100-12-31&limit=1');
  assert.deepEqual(rebuild(changes, 'contract'), byId(contracts.items));
  const shifts = await walk<{ id: string }>(baseUrl, token, '/company/timetable?from=2026-05-15&to=2026-07-15&limit=2');
  assert.deepEqual(rebuild(changes, 'shift'), byId(shifts.items));
  const configuration = (await apiGet<Record<string, Array<{ id: string }>>>(baseUrl, token, '/company/configuration')).body;
  assert.deepEqual(rebuild(changes, 'department'), byId(configuration.departments ?? []));
  assert.deepEqual(rebuild(changes, 'position'), byId(configuration.positions ?? []));
  assert.deepEqual(rebuild(changes, 'shift_type'), byId(configuration.shiftTypes ?? []));
  assert.deepEqual(rebuild(changes, 'contract_type'), byId(configuration.contractTypes ?? []));
}

test('an import logs each created entity once, in the order it applies them, and the log rebuilds the collections', async () => {
  await importCompanyData(db(), company.tenant.companyId, document());
  const changes = await everyChange();
  assert.deepEqual(changes.map((c) => c.type), [
    'department.created', 'department.created', 'position.created', 'position.created',
    'shift_type.created', 'shift_type.created', 'shift_type.created', 'shift_type.created', 'contract_type.created',
    'user.created', 'user.created', 'contract.created', 'contract.created', 'shift.created', 'shift.created', 'shift.created',
  ]);
  for (let i = 1; i < changes.length; i++) assert.ok((changes[i]?.seq ?? 0) > (changes[i - 1]?.seq ?? 0), 'seq grows');
  assert.equal(new Set(changes.map((c) => c.id)).size, changes.length, 'ids are unique');
  for (const change of changes) {
    assert.equal(change.deleted, false);
    assert.equal((change.data as { id: string }).id, change.resourceId);
    assert.match(change.occurredAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+0[12]:00$/, 'in the company offset');
  }
  await assertLogMatchesCollections(changes);

  // The same document again changes nothing and logs nothing.
  await importCompanyData(db(), company.tenant.companyId, document());
  assert.equal((await everyChange()).length, changes.length);
});

test('edits are logged as updates, and removing a user leaves tombstones for it, its contracts and its shifts', async () => {
  const before = await everyChange();
  const doc = document();
  doc.users = [user('ann', { lastName: 'Renamed' }), { ref: 'bob', deleted: true }];
  doc.contracts = [contract('c-ann', 'ann')];
  doc.shifts = [shift('s1', '2026-06-01', { userRef: 'ann', note: 'moved' }), shift('s3', '2026-06-03')];
  // A shift type changing category changes how the timetable shows the shifts of that type.
  doc.shiftTypes = doc.shiftTypes.map((t) => (t.ref === 'work' ? { ...t, category: 'relief' } : t));
  await importCompanyData(db(), company.tenant.companyId, doc);
  const changes = await everyChange();
  const added = changes.slice(before.length);
  const bob = before.find((c) => c.type === 'user.created' && (c.data as { lastName: string }).lastName === 'Last bob')?.resourceId;
  const bobsContract = before.find((c) => c.type === 'contract.created' && (c.data as { userId: string }).userId === bob)?.resourceId;
  const bobsShift = before.find((c) => c.type === 'shift.created' && (c.data as { userId: string }).userId === bob)?.resourceId;
  const tombstones = added.filter((c) => c.deleted);
  assert.deepEqual(tombstones.map((c) => [c.type, c.resourceId, c.data]), [
    ['shift.deleted', bobsShift, null],
    ['contract.deleted', bobsContract, null],
    ['user.deleted', bob, null],
  ]);
  assert.deepEqual(added.filter((c) => !c.deleted).map((c) => c.type).sort(), ['shift.updated', 'shift.updated', 'shift_type.updated', 'user.updated']);
  await assertLogMatchesCollections(changes);
});

test('a rejected import logs nothing', async () => {
  const before = await everyChange();
  await assert.rejects(importCompanyData(db(), company.tenant.companyId, { users: [user('zed', { employmentStart: '2026-02-30' })] }));
  assert.equal((await everyChange()).length, before.length);
});

test('revenue and wage-budget items are logged when created or updated, as their read-back shows them; unchanged items log nothing', async () => {
  const { baseUrl } = company.server;
  const departmentId = await addDepartment(db(), company.tenant.companyId, 'Bar');
  const before = await everyChange();
  const revenue = `${baseUrl}/api/v1/company/revenue`;
  await postJson(revenue, company.token, { items: [{ departmentId, date: '2026-11-20', kind: 'realised', amount: 10 }, { departmentId, week: '2026-W47', kind: 'prognosis', amount: 70 }] });
  await postJson(revenue, company.token, { items: [{ departmentId, date: '2026-11-20', kind: 'realised', amount: 12.5 }, { departmentId, week: '2026-W47', kind: 'prognosis', amount: 70 }] });
  await postJson(`${baseUrl}/api/v1/company/wage-budget`, company.token, { items: [{ departmentId, date: '2026-11-20', amount: 500, hours: 20 }] });
  const added = (await everyChange()).slice(before.length).filter((c) => c.resourceType !== 'department');
  assert.deepEqual(added.map((c) => c.type), ['revenue_item.created', 'revenue_item.created', 'revenue_item.updated', 'wage_budget_item.created']);
  const readBack = await apiGet<{ data: Array<{ id: string }> }>(baseUrl, company.token, '/company/revenue?from=2026-11-16&to=2026-11-22');
  assert.deepEqual(rebuild(added, 'revenue_item'), byId(readBack.body.data));
  const wageBudget = await apiGet<{ data: Array<{ id: string }> }>(baseUrl, company.token, '/company/wage-budget?from=2026-11-20&to=2026-11-20');
  assert.deepEqual(rebuild(added, 'wage_budget_item'), byId(wageBudget.body.data));
});

test('a 5,000-item batch of new, changed and unchanged items logs each written item once, in key order, as read back', async () => {
  const { baseUrl } = company.server;
  const departmentId = await addDepartment(db(), company.tenant.companyId, 'Large');
  const item = (i: number, amount: number) => ({ departmentId, date: '2026-10-01', kind: i % 2 === 0 ? 'realised' : 'prognosis', category: `c${String(Math.floor(i / 2)).padStart(4, '0')}`, amount });
  const revenue = `${baseUrl}/api/v1/company/revenue`;
  await postJson(revenue, company.token, { items: Array.from({ length: 4000 }, (_, i) => item(i, i)) });
  const afterSeq = (await readChangeWindow(db(), company.tenant.companyId, { afterSeq: 0, limit: 100_000 })).changes.at(-1)?.seq ?? 0;
  // Every third stored item changed, the rest the same, and 1,000 new ones: written by several statements on PostgreSQL.
  const items = Array.from({ length: 5000 }, (_, i) => item(i, i % 3 === 0 || i >= 4000 ? i + 0.5 : i)).reverse();
  const answer = await postJson<{ created: number; updated: number; unchanged: number }>(revenue, company.token, { items });
  assert.deepEqual(answer.body, { received: 5000, created: 1000, updated: 1334, unchanged: 2666 });
  const added = (await readChangeWindow(db(), company.tenant.companyId, { afterSeq, limit: 100_000 })).changes;
  assert.equal(added.filter((c) => c.type === 'revenue_item.created').length, 1000);
  assert.equal(added.filter((c) => c.type === 'revenue_item.updated').length, 1334);
  // The upsert's key order (one day, one department): kind, then category.
  const keys = added.map((c) => { const data = c.data as { kind: string; category: string }; return `${data.kind}/${data.category}`; });
  assert.deepEqual(keys, [...keys].sort(), 'in key order');
  const readBack: Array<{ id: string }> = [];
  for (let cursor: string | null = ''; cursor !== null; ) {
    const page: { body: { data: Array<{ id: string }>; nextCursor: string | null } } = await apiGet(baseUrl, company.token, `/company/revenue?from=2026-10-01&to=2026-10-01&departmentId=${departmentId}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    readBack.push(...page.body.data);
    cursor = page.body.nextCursor;
  }
  const stored = byId(readBack);
  assert.deepEqual(rebuild(added, 'revenue_item'), new Map(added.map((c) => [c.resourceId, stored.get(c.resourceId)])));
});

test('a timeclock event is logged in the company of its person, as the 200 shows it', async () => {
  const { ctx, baseUrl } = company.server;
  // A second company of the same organisation: the terminal's token belongs to the first.
  const sister = await signedInCompany(ctx, { organisationId: company.tenant.organisationId, name: 'Sister', timezone: 'America/New_York' });
  const person = await addEmployee(ctx.db, sister.tenant);
  const before = await everyChange();
  const response = await postJson<{ id: string }>(`${baseUrl}/api/v1/timeclock/events`, company.token, { eventId: randomUUID(), badgeId: person.badgeId, type: 'clock_in', occurredAt: new Date(Date.now() - 60_000).toISOString(), source: 'terminal' });
  assert.equal(response.status, 200);
  assert.equal((await everyChange()).length, before.length, 'nothing in the token\'s company');
  const [logged, ...more] = await everyChange(sister.tenant.companyId);
  assert.equal(more.length, 0);
  assert.equal(logged?.type, 'timeclock_event.created');
  assert.equal(logged?.resourceId, response.body.id);
  assert.deepEqual(logged?.data, response.body);
  assert.match(logged?.occurredAt ?? '', /-0[45]:00$/, 'in the person\'s company offset');
});

test('changes of a period and of some types only', async () => {
  const all = await everyChange();
  const first = all[0];
  assert.ok(first);
  const during = await changesBetween(db(), company.tenant.companyId, { fromInstant: first.occurredAt, toInstant: new Date(Date.now() + 60_000).toISOString(), types: ['user.deleted', 'user.updated'] });
  assert.deepEqual(during.map((c) => c.type), ['user.deleted', 'user.updated']);
  assert.deepEqual(await changesBetween(db(), company.tenant.companyId, { fromInstant: '2000-01-01T00:00:00Z', toInstant: first.occurredAt }), []);
  const filtered = (await readChangeWindow(db(), company.tenant.companyId, { afterSeq: 0, limit: 1000, types: ['shift.deleted'] })).changes;
  assert.deepEqual(filtered.map((c) => c.type), ['shift.deleted']);
});
