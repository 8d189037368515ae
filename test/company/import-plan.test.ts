// The planning rules of an import (src/company/import-plan.ts), without a database: a document read
// as the import reads it, planned over the rows a company has stored. "Stored" here is what an
// earlier plan wrote (its upserts), so each case reads as: the company holds this, then imports that.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldError } from '../../src/platform/errors.ts';
import { pacer } from '../../src/platform/cooperative.ts';
import { emptyDocument, readDocument } from '../../src/company/import-document.ts';
import { planImport, type CompanyRows, type ImportPlan, type PlanContext } from '../../src/company/import-plan.ts';
import { SECTIONS } from '../../src/company/import-schema.ts';
import { baseDocument, contract, shift, user, type TestDocument } from './fixtures.ts';

const HOUR = 3_600_000;
const context: PlanContext = { companyId: 'cmp_plan', organisationId: 'org_plan', timezone: 'Europe/Amsterdam', currency: 'EUR', now: 1_700_000_000_000, badgesElsewhere: new Set() };
const NOTHING_STORED = Object.fromEntries(SECTIONS.map((section) => [section, []])) as unknown as CompanyRows;

interface Planned {
  plan: ImportPlan;
  problems: FieldError[];
  /** What the company holds once this plan is written over `stored` (its deletions left out). */
  stored: CompanyRows;
}

async function plan(document: TestDocument, stored = NOTHING_STORED, ctx: Partial<PlanContext> = {}): Promise<Planned> {
  const doc = emptyDocument();
  const shapeProblems = [...readDocument(document, doc)];
  assert.deepEqual(shapeProblems, [], 'a test document of sound shape');
  const problems: FieldError[] = [];
  const result = await planImport(doc, stored, { ...context, ...ctx }, problems, pacer());
  const after = Object.fromEntries(
    SECTIONS.map((section) => {
      const written = new Map(stored[section].map((row) => [row.id, row]));
      for (const id of result[section].deleteIds) written.delete(id);
      for (const row of result[section].upserts) written.set(row.id, row);
      return [section, [...written.values()]];
    }),
  ) as unknown as CompanyRows;
  return { plan: result, problems, stored: after };
}

const emptyTestDocument = (): TestDocument => Object.fromEntries(SECTIONS.map((section) => [section, []])) as unknown as TestDocument;
const idOf = (rows: ReadonlyArray<{ id: string; ref: string }>, ref: string): string => rows.find((row) => row.ref === ref)!.id;

test('a ref names an entry of the same document or a stored row of the company, by its id', async () => {
  const first = await plan({ ...baseDocument(), users: [user('ann')] });
  assert.equal(first.plan.positions.upserts.find((p) => p.ref === 'cook')!.department_id, idOf(first.plan.departments.upserts, 'kitchen'));
  assert.deepEqual([first.plan.departments.created, first.plan.positions.created, first.plan.users.created], [2, 2, 1]);
  // A later document with only a contract: its refs resolve to what the company already holds.
  const later = await plan({ ...baseDocument(), contracts: [contract('c1', 'ann')] }, first.stored);
  assert.deepEqual(later.problems, []);
  const [row] = later.plan.contracts.upserts;
  assert.equal(row!.employee_id, idOf(first.stored.users, 'ann'));
  assert.equal(row!.contract_type_id, idOf(first.stored.contractTypes, 'permanent'));
});

test('a stored row that the document repeats unchanged is left alone; a changed one keeps its id', async () => {
  const document = { ...baseDocument(), users: [user('ann')] };
  const first = await plan(document);
  const again = await plan(document, first.stored);
  assert.deepEqual(SECTIONS.map((section) => again.plan[section].upserts.length), SECTIONS.map(() => 0));
  const renamed = await plan({ ...document, users: [user('ann', { lastName: 'Other' })] }, first.stored);
  assert.deepEqual(renamed.plan.users.upserts.map((row) => [row.id, row.last_name]), [[idOf(first.stored.users, 'ann'), 'Other']]);
  assert.deepEqual([renamed.plan.users.created, renamed.plan.users.updated], [0, 1]);
});

test('a ref to nothing, or to what the same document removes, is a problem at its path', async () => {
  const first = await plan(baseDocument());
  const { problems } = await plan({ ...baseDocument(), departments: [{ ref: 'floor', deleted: true }], positions: [{ ref: 'bar', name: 'Bar', departmentRef: 'cellar' }, { ref: 'waiter', name: 'Waiter', departmentRef: 'floor' }] }, first.stored);
  assert.deepEqual(problems, [
    { path: '/positions/0/departmentRef', message: 'refers to no department: "cellar" is neither in this document nor stored for this company' },
    { path: '/positions/1/departmentRef', message: 'refers to the department "floor", which this document removes' },
  ]);
});

test('removing a user removes its stored contracts and shifts; a removed department still in use is a problem', async () => {
  const first = await plan({ ...baseDocument(), users: [user('ann')], contracts: [contract('c1', 'ann')], shifts: [shift('s1', '2030-01-07', { userRef: 'ann' }), shift('open', '2030-01-07')] });
  const removed = await plan({ ...baseDocument(), users: [{ ref: 'ann', deleted: true }] }, first.stored);
  assert.deepEqual(removed.problems, []);
  assert.deepEqual(removed.plan.contracts.deleteIds, [idOf(first.stored.contracts, 'c1')]);
  assert.deepEqual(removed.plan.shifts.deleteIds, [idOf(first.stored.shifts, 's1')], 'the open shift, of no user, stays');
  // The kitchen is the department of the stored cook position, Ann, her contract and both shifts,
  // none of which this document (only the removal) touches.
  const onlyRemoval = { ...emptyTestDocument(), departments: [{ ref: 'kitchen', deleted: true }] };
  const { problems } = await plan(onlyRemoval, first.stored);
  assert.deepEqual(problems, [{ path: '/departments/0', message: 'is still used by position "cook", user "ann", contract "c1" and 2 more: remove or change them in the same document' }]);
});

test('a badge belongs to one employee of the organisation; it may move between people in one import', async () => {
  const taken = await plan({ ...baseDocument(), users: [user('ann', { badgeId: 'B1' }), user('bob', { badgeId: 'B1' }), user('cat', { badgeId: 'B2' })] }, NOTHING_STORED, { badgesElsewhere: new Set(['B2']) });
  assert.deepEqual(taken.problems, [
    { path: '/users/1/badgeId', message: 'is already the badge of /users/0' },
    { path: '/users/2/badgeId', message: 'is already the badge of an employee of another company of this organisation' },
  ]);
  const first = await plan({ ...baseDocument(), users: [user('ann', { badgeId: 'B1' }), user('bob', { badgeId: 'B2' })] });
  const swapped = await plan({ ...baseDocument(), users: [user('ann', { badgeId: 'B2' }), user('bob', { badgeId: 'B1' })] }, first.stored);
  assert.deepEqual(swapped.problems, []);
  assert.deepEqual(new Set(swapped.plan.badgeMoves), new Set([idOf(first.stored.users, 'ann'), idOf(first.stored.users, 'bob')]), 'both badges cleared before they are written');
});

test('a shift ending at or before its start ends the next day; a break must be shorter, a local time must exist, an absence needs a user', async () => {
  const night = await plan({ ...baseDocument(), shifts: [shift('night', '2030-01-07', { start: '22:00', end: '06:00', breakMinutes: 0 }), shift('day-long', '2030-01-07', { start: '07:00', end: '07:00' })] });
  const [row, dayLong] = night.plan.shifts.upserts;
  assert.equal(row!.ends_at - row!.starts_at, 8 * HOUR);
  assert.equal(row!.starts_at, Date.parse('2030-01-07T21:00:00Z'), '22:00 in Amsterdam in winter');
  assert.equal(dayLong!.ends_at - dayLong!.starts_at, 24 * HOUR);
  const { problems } = await plan({
    ...baseDocument(),
    shifts: [
      shift('long-break', '2030-01-07', { start: '09:00', end: '10:00', breakMinutes: 60 }),
      // The clocks go from 02:00 to 03:00 on the last Sunday of March.
      shift('skipped', '2030-03-31', { start: '02:30', end: '08:00' }),
      shift('sick', '2030-01-07', { shiftTypeRef: 'sick' }),
    ],
  });
  assert.deepEqual(problems, [
    { path: '/shifts/0/breakMinutes', message: 'must be shorter than the shift' },
    { path: '/shifts/1/start', message: '02:30 does not exist on 2030-03-31 in Europe/Amsterdam (the clocks skip it)' },
    { path: '/shifts/2/userRef', message: 'is required: an absence belongs to a user' },
  ]);
});

test('a user\'s timeclock activation time is when it was turned on, and survives later edits', async () => {
  const first = await plan({ ...baseDocument(), users: [user('ann', { timeclockActive: true })] });
  assert.equal(first.plan.users.upserts[0]!.activated_at, context.now);
  const edited = await plan({ ...baseDocument(), users: [user('ann', { timeclockActive: true, lastName: 'Other' })] }, first.stored, { now: context.now + HOUR });
  assert.equal(edited.plan.users.upserts[0]!.activated_at, context.now);
  const off = await plan({ ...baseDocument(), users: [user('ann', { timeclockActive: false })] }, first.stored, { now: context.now + HOUR });
  assert.equal(off.plan.users.upserts[0]!.activated_at, null);
});
