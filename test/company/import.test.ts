// The import document (contract: operator side): validated whole with every problem listed and nothing written,
// applied in one transaction, upserted by ref so a re-import changes nothing and an edit updates in
// place; deletions cascade from a user to its contracts and shifts and free its badge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { signedInCompany, type SignedInCompany } from '../support/company.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { NOTHING, NOTHING_CHANGED, apiGet, baseDocument, contract, createdCounts, mixedProblems, shift, user } from './fixtures.ts';
import type { Page } from '../support/http.ts';

const server = useTestServer({}, { inProcess: true });

function company(name = 'Import Co', organisationId?: string): Promise<SignedInCompany> {
  return signedInCompany(server.ctx, { name, ...(organisationId ? { organisationId } : {}) });
}

function fullDocument() {
  const doc = baseDocument();
  doc.users.push(user('ann', { badgeId: 'B-1', timeclockActive: true }), user('bob', { badgeId: 'B-2' }));
  doc.contracts.push(contract('ann-1', 'ann'), contract('bob-1', 'bob', { departmentRef: null, positionRef: null }));
  doc.shifts.push(shift('s1', '2026-06-01', { userRef: 'ann' }), shift('s2', '2026-06-01', { userRef: 'bob' }), shift('open', '2026-06-02'));
  return doc;
}

const TABLES = ['departments', 'positions', 'shift_types', 'contract_types', 'employees', 'contracts', 'shifts'] as const;

/** Every stored row of the company, table by table, in id order. */
async function storedRows(companyId: string): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of TABLES) rows[table] = await server.ctx.db.selectFrom(table).selectAll().where('company_id', '=', companyId).orderBy('id').execute();
  return rows;
}

test('a first import creates everything and reports the counts per entity', async () => {
  const { tenant } = await company();
  const result = await importCompanyData(server.ctx.db, tenant.companyId, fullDocument());
  assert.deepEqual(result, createdCounts({ departments: 2, positions: 2, shiftTypes: 4, contractTypes: 1, users: 2, contracts: 2, shifts: 3 }));
});

test('a second import of the same document changes nothing, not even updatedAt', async () => {
  const { tenant, token } = await company();
  await importCompanyData(server.ctx.db, tenant.companyId, fullDocument(), 1_000);
  const before = await apiGet(server.baseUrl, token, '/company/timetable?from=2026-06-01&to=2026-06-02');
  const result = await importCompanyData(server.ctx.db, tenant.companyId, fullDocument(), 2_000);
  assert.deepEqual(result, NOTHING_CHANGED);
  const after = await apiGet(server.baseUrl, token, '/company/timetable?from=2026-06-01&to=2026-06-02');
  assert.deepEqual(after.body, before.body);
  assert.equal(after.headers.get('etag'), before.headers.get('etag'));
});

test('an edited document updates in place: same ids, new values, only real changes counted', async () => {
  const { tenant, token } = await company();
  await importCompanyData(server.ctx.db, tenant.companyId, fullDocument(), Date.parse('2026-01-01T00:00:00Z'));
  const usersBefore = await apiGet<Page<{ id: string; lastName: string; employeeNumber: string }>>(server.baseUrl, token, '/company/users');
  const doc = fullDocument();
  doc.users[0] = { ...doc.users[0], lastName: 'Jansen' };
  doc.shifts[0] = { ...doc.shifts[0], end: '18:00' };
  const result = await importCompanyData(server.ctx.db, tenant.companyId, doc, Date.parse('2026-02-01T12:00:00Z'));
  assert.deepEqual(result.users, { created: 0, updated: 1, deleted: 0 });
  assert.deepEqual(result.shifts, { created: 0, updated: 1, deleted: 0 });
  assert.deepEqual(result.contracts, NOTHING);
  const usersAfter = await apiGet<Page<{ id: string; lastName: string; employeeNumber: string; updatedAt: string }>>(server.baseUrl, token, '/company/users');
  assert.deepEqual(usersAfter.body.data.map((u) => u.id), usersBefore.body.data.map((u) => u.id));
  const ann = usersAfter.body.data.find((u) => u.employeeNumber === 'E-ann');
  assert.equal(ann?.lastName, 'Jansen');
  assert.equal(ann?.updatedAt, '2026-02-01T13:00:00+01:00');
  assert.equal(usersAfter.body.data.find((u) => u.employeeNumber === 'E-bob')?.updatedAt, '2026-01-01T01:00:00+01:00');
  const shifts = await apiGet<Page<{ endsAt: string }>>(server.baseUrl, token, '/company/timetable?from=2026-06-01&to=2026-06-01');
  assert.deepEqual(shifts.body.data.map((s) => s.endsAt).sort(), ['2026-06-01T17:00:00+02:00', '2026-06-01T18:00:00+02:00']);
});

test('a bad document changes nothing and lists every problem with its JSON path', async () => {
  const { tenant } = await company();
  await importCompanyData(server.ctx.db, tenant.companyId, fullDocument());
  const before = await storedRows(tenant.companyId);
  const doc = fullDocument() as Record<string, unknown> & ReturnType<typeof fullDocument>;
  // Valid edits of stored rows and valid new rows beside the bad entries: none of them may be stored.
  doc.departments[0] = { ...doc.departments[0], name: 'Renamed kitchen' };
  doc.departments.push({ ref: 'terrace', name: 'Terrace', code: 'TER' });
  doc.users[1] = { ...doc.users[1], lastName: 'Renamed' };
  doc.contracts[0] = { ...doc.contracts[0], hoursPerWeek: 20 };
  doc.shifts[0] = { ...doc.shifts[0], end: '18:00', note: 'edited' };
  doc.users.push(user('carl', { badgeId: 'B-1', employmentStart: '2026-05-01', employmentEnd: '2026-04-30' }), user('ann', {}));
  doc.contracts.push(contract('c-bad', 'nobody', { wage: { amount: 12.345, currency: 'EUR', period: 'hour' } }), contract('c-shape', 'ann', { wage: { amount: 10, period: 'week' } }));
  doc.shifts.push(
    shift('x1', '2026-02-30'),
    shift('x2', '2026-06-03', { start: '9:00' }),
    shift('x3', '2026-06-03', { shiftTypeRef: 'sick' }),
    shift('x4', '2026-06-03', { departmentRef: 'bar', breakMinutes: 600 }),
    { ...shift('x5', '2026-06-03'), colour: 'red' },
    shift('x6', '2026-06-03', { positionRef: 'c-shape-is-no-position' }),
    shift('x7', '2026-06-04', { userRef: 'bob', departmentRef: 'terrace', positionRef: null }),
  );
  doc.users.push(user('dave', { departmentRefs: ['terrace'], positionRefs: [] }));
  doc.contracts.push(contract('dave-1', 'dave', { departmentRef: 'terrace', positionRef: null }));
  doc.positions.push({ ref: 'cook', name: 'Cook again', departmentRef: 'kitchen' });
  doc.shiftTypes.push({ ref: 'holiday', name: 'Holiday', category: 'holiday', paid: true });
  doc.extra = [];
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, doc), (error: { status: number; code: string; message: string; errors: Array<{ path: string; message: string }> }) => {
    assert.equal(error.status, 400);
    assert.equal(error.code, 'invalid_import');
    const byPath = Object.fromEntries(error.errors.map((e) => [e.path, e.message]));
    assert.deepEqual(Object.keys(byPath).sort(), [
      '/contracts/2/userRef',
      '/contracts/2/wage/amount',
      '/contracts/3/wage/period',
      '/extra',
      '/positions/2/ref',
      '/shiftTypes/4/category',
      '/shifts/3/date',
      '/shifts/4/start',
      '/shifts/5/userRef',
      '/shifts/6/breakMinutes',
      '/shifts/6/departmentRef',
      '/shifts/7/colour',
      '/shifts/8/positionRef',
      '/users/2/badgeId',
      '/users/2/employmentEnd',
      '/users/3/ref',
    ].sort());
    assert.equal(error.errors.length, 16);
    assert.match(error.message, /16 problems/);
    assert.match(byPath['/positions/2/ref'] ?? '', /repeats the ref "cook" of \/positions\/0/);
    assert.match(byPath['/shifts/4/start'] ?? '', /HH:MM/);
    assert.match(byPath['/contracts/2/userRef'] ?? '', /refers to no user: "nobody"/);
    assert.match(byPath['/users/2/badgeId'] ?? '', /already the badge of user "ann"|already the badge of \/users\/0/);
    assert.match(byPath['/shifts/5/userRef'] ?? '', /absence/);
    return true;
  });
  assert.deepEqual(await storedRows(tenant.companyId), before, 'every stored row as it was');
  const db = server.ctx.db;
  const kitchen = await db.selectFrom('departments').select('name').where('company_id', '=', tenant.companyId).where('ref', '=', 'kitchen').executeTakeFirstOrThrow();
  assert.equal(kitchen.name, 'Kitchen');
  const bob = await db.selectFrom('employees').select('last_name').where('company_id', '=', tenant.companyId).where('ref', '=', 'bob').executeTakeFirstOrThrow();
  assert.equal(bob.last_name, 'Last bob');
  const annContract = await db.selectFrom('contracts').select('hours_per_week_centi').where('company_id', '=', tenant.companyId).where('ref', '=', 'ann-1').executeTakeFirstOrThrow();
  assert.equal(annContract.hours_per_week_centi, 3800);
  const s1 = await db.selectFrom('shifts').select(['ends_at', 'note']).where('company_id', '=', tenant.companyId).where('ref', '=', 's1').executeTakeFirstOrThrow();
  assert.deepEqual({ ...s1 }, { ends_at: Date.parse('2026-06-01T17:00:00+02:00'), note: null });
  for (const [table, ref] of [['departments', 'terrace'], ['employees', 'dave'], ['employees', 'carl'], ['contracts', 'dave-1'], ['shifts', 'x7']] as const) {
    const found = await db.selectFrom(table).select('id').where('company_id', '=', tenant.companyId).where('ref', '=', ref).execute();
    assert.deepEqual(found, [], `no ${table} row "${ref}"`);
  }
});

test('removing a user removes its contracts and shifts and frees its badge for someone else', async () => {
  const { tenant, token } = await company();
  await importCompanyData(server.ctx.db, tenant.companyId, fullDocument());
  const result = await importCompanyData(server.ctx.db, tenant.companyId, {
    users: [{ ref: 'ann', deleted: true }, user('dora', { badgeId: 'B-1', timeclockActive: true })],
  });
  assert.deepEqual(result.users, { created: 1, updated: 0, deleted: 1 });
  assert.deepEqual(result.contracts, { created: 0, updated: 0, deleted: 1 });
  assert.deepEqual(result.shifts, { created: 0, updated: 0, deleted: 1 });
  const users = await apiGet<Page<{ employeeNumber: string }>>(server.baseUrl, token, '/company/users');
  assert.deepEqual(users.body.data.map((u) => u.employeeNumber), ['E-bob', 'E-dora']);
  const shifts = await apiGet<Page<{ userId: string | null }>>(server.baseUrl, token, '/company/timetable?from=2026-06-01&to=2026-06-02');
  assert.equal(shifts.body.data.length, 2);
  const badge = await server.ctx.db.selectFrom('employees').select(['ref', 'activated_at']).where('company_id', '=', tenant.companyId).where('badge_id', '=', 'B-1').execute();
  assert.deepEqual(badge.map((b) => b.ref), ['dora']);
  // Deleting what is already gone is not an error and changes nothing.
  const again = await importCompanyData(server.ctx.db, tenant.companyId, { users: [{ ref: 'ann', deleted: true }] });
  assert.deepEqual(again.users, NOTHING);
});

test('an entity still in use cannot be removed; removing its users in the same document can', async () => {
  const { tenant } = await company();
  await importCompanyData(server.ctx.db, tenant.companyId, fullDocument());
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, { departments: [{ ref: 'kitchen', deleted: true }] }), (error: { errors: Array<{ path: string; message: string }> }) => {
    assert.equal(error.errors.length, 1);
    assert.equal(error.errors[0]?.path, '/departments/0');
    assert.match(error.errors[0]?.message ?? '', /still used by position "cook"/);
    return true;
  });
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, { shifts: [shift('s9', '2026-06-05', { userRef: 'ann' })], users: [{ ref: 'ann', deleted: true }] }), (error: { errors: Array<{ path: string; message: string }> }) => {
    assert.deepEqual(error.errors.map((e) => e.path), ['/shifts/0/userRef']);
    assert.match(error.errors[0]?.message ?? '', /which this document removes/);
    return true;
  });
  const result = await importCompanyData(server.ctx.db, tenant.companyId, { shiftTypes: [{ ref: 'available', deleted: true }], contractTypes: [] });
  assert.deepEqual(result.shiftTypes, { created: 0, updated: 0, deleted: 1 });
});

test('a badge id is unique within the organisation, across its companies; badges can swap in one import', async () => {
  const first = await company('First');
  const second = await company('Second', first.tenant.organisationId);
  const stranger = await company('Stranger');
  await importCompanyData(server.ctx.db, first.tenant.companyId, fullDocument());
  await assert.rejects(importCompanyData(server.ctx.db, second.tenant.companyId, { ...baseDocument(), users: [user('zed', { badgeId: 'B-2' })] }), (error: { errors: Array<{ path: string; message: string }> }) => {
    assert.deepEqual(error.errors, [{ path: '/users/0/badgeId', message: 'is already the badge of an employee of another company of this organisation' }]);
    return true;
  });
  const elsewhere = await importCompanyData(server.ctx.db, stranger.tenant.companyId, { ...baseDocument(), users: [user('zed', { badgeId: 'B-2' })] });
  assert.equal(elsewhere.users.created, 1);
  const doc = fullDocument();
  doc.users = [user('ann', { badgeId: 'B-2', timeclockActive: true }), user('bob', { badgeId: 'B-1' })];
  const swapped = await importCompanyData(server.ctx.db, first.tenant.companyId, doc);
  assert.deepEqual(swapped.users, { created: 0, updated: 2, deleted: 0 });
});

test('turning the timeclock on sets activatedAt once; unrelated edits keep it; turning it off clears it', async () => {
  const { tenant } = await company();
  const activatedAt = async (ref: string) =>
    (await server.ctx.db.selectFrom('employees').select('activated_at').where('company_id', '=', tenant.companyId).where('ref', '=', ref).executeTakeFirstOrThrow()).activated_at;
  await importCompanyData(server.ctx.db, tenant.companyId, fullDocument(), 1_000);
  assert.equal(await activatedAt('ann'), 1_000);
  assert.equal(await activatedAt('bob'), null);
  const doc = fullDocument();
  doc.users = [user('ann', { badgeId: 'B-1', timeclockActive: true, firstName: 'Anna' }), user('bob', { badgeId: 'B-2', timeclockActive: true })];
  await importCompanyData(server.ctx.db, tenant.companyId, doc, 2_000);
  assert.equal(await activatedAt('ann'), 1_000);
  assert.equal(await activatedAt('bob'), 2_000);
  doc.users = [user('ann', { badgeId: 'B-1', timeclockActive: false, firstName: 'Anna' })];
  await importCompanyData(server.ctx.db, tenant.companyId, doc, 3_000);
  assert.equal(await activatedAt('ann'), null);
});

test('an entry with problems of shape still has its refs, dates and badges checked: every problem, by entry then field', async () => {
  const { tenant } = await company();
  const { document, errors } = mixedProblems();
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, document), (error: { code: string; message: string; errors: Array<{ path: string; message: string }> }) => {
    assert.equal(error.code, 'invalid_import');
    assert.deepEqual(error.errors, errors);
    assert.equal(error.message, `The import document has ${errors.length} problems; nothing was imported.`);
    return true;
  });
  assert.deepEqual(await storedRows(tenant.companyId), { departments: [], positions: [], shift_types: [], contract_types: [], employees: [], contracts: [], shifts: [] });
});

test('the list is in document order: entries by number, a removal before its fields, missing, nested and unknown fields in their places', async () => {
  const { tenant } = await company();
  await importCompanyData(server.ctx.db, tenant.companyId, fullDocument());
  const { end: _end, ...noEnd } = shift('x', '2026-06-01');
  const document = {
    extra: 1,
    departments: [{ ref: 'kitchen', deleted: true }, { ref: 'kitchen', deleted: true }],
    users: [{ colour: 'red', ...user('zed', { firstName: 5, departmentRefs: ['nope', 'kitchen'] }) }],
    // Twelve shifts, so the 10th and 11th must come after the 9th; the odd ones miss `end`, which Ajv reports first.
    shifts: Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? shift(`s${i}`, '2026-06-01', { departmentRef: 'nope' }) : { colour: 'red', ...noEnd, ref: `s${i}`, start: '9:00', departmentRef: 'nope' })),
  };
  const shiftProblems = (i: number) => [
    ...(i % 2 === 1 ? [{ path: `/shifts/${i}/start`, message: 'must be a time as HH:MM (00:00 to 23:59)' }, { path: `/shifts/${i}/end`, message: 'is required' }] : []),
    { path: `/shifts/${i}/departmentRef`, message: 'refers to no department: "nope" is neither in this document nor stored for this company' },
    ...(i % 2 === 1 ? [{ path: `/shifts/${i}/colour`, message: 'unknown property "colour"' }] : []),
  ];
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, document), (error: { errors: Array<{ path: string; message: string }> }) => {
    const [unknownSection, removal, ...rest] = error.errors;
    assert.deepEqual(unknownSection, { path: '/extra', message: 'is not a known section' });
    assert.equal(removal?.path, '/departments/1');
    assert.match(removal?.message ?? '', /^is still used by position "cook"/);
    assert.deepEqual(rest, [
      { path: '/departments/1/ref', message: 'repeats the ref "kitchen" of /departments/0' },
      { path: '/users/0/firstName', message: 'must be string' },
      { path: '/users/0/departmentRefs/0', message: 'refers to no department: "nope" is neither in this document nor stored for this company' },
      { path: '/users/0/departmentRefs/1', message: 'refers to the department "kitchen", which this document removes' },
      { path: '/users/0/colour', message: 'unknown property "colour"' },
      ...Array.from({ length: 12 }, (_, i) => shiftProblems(i)).flat(),
    ]);
    return true;
  });
});

test('a section that is not a list ends the checking with the problems of shape: no ref is looked up against a broken section', async () => {
  const { tenant } = await company();
  const document = { departments: 'kitchen', shifts: [shift('s1', '2026-06-01', { start: '25:00' }), shift('s2', '2026-06-01', { shiftTypeRef: 'nope' })] };
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, document), (error: { errors: Array<{ path: string; message: string }> }) => {
    assert.deepEqual(error.errors, [{ path: '/departments', message: 'must be an array' }, { path: '/shifts/0/start', message: 'must be a time as HH:MM (00:00 to 23:59)' }]);
    return true;
  });
});

test('refs may point at rows stored earlier; a document that is not an object is one problem', async () => {
  const { tenant } = await company();
  await importCompanyData(server.ctx.db, tenant.companyId, fullDocument());
  const result = await importCompanyData(server.ctx.db, tenant.companyId, { shifts: [shift('later', '2026-06-09', { userRef: 'bob' })] });
  assert.deepEqual(result.shifts, { created: 1, updated: 0, deleted: 0 });
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, []), (error: { errors: Array<{ path: string }> }) => {
    assert.deepEqual(error.errors.map((e) => e.path), ['']);
    return true;
  });
});

test('a document with thousands of problems lists every one, and a path of megabytes whole (CONTRACT §5)', async () => {
  const { tenant } = await company();
  type Refusal = { code: string; message: string; errors: Array<{ path: string; message: string }> };
  // 2,000 empty shifts: six missing fields each, 12,000 problems.
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, { shifts: Array.from({ length: 2000 }, () => ({})) }), (error: Refusal) => {
    assert.equal(error.code, 'invalid_import');
    assert.equal(error.errors.length, 12_000);
    assert.equal(error.message, 'The import document has 12000 problems; nothing was imported.');
    assert.deepEqual(error.errors[0], { path: '/shifts/0/ref', message: 'is required' });
    assert.deepEqual(error.errors.at(-1)?.path, '/shifts/1999/shiftTypeRef');
    return true;
  });
  const name = 'x'.repeat(5000);
  await assert.rejects(importCompanyData(server.ctx.db, tenant.companyId, { departments: [{ ref: 'd', name: 'D', code: 'D', [name]: 1 }] }), (error: Refusal) => {
    assert.deepEqual(error.errors, [{ path: `/departments/0/${name}`, message: `unknown property "${name}"` }]);
    return true;
  });
  assert.deepEqual(await storedRows(tenant.companyId), { departments: [], positions: [], shift_types: [], contract_types: [], employees: [], contracts: [], shifts: [] });
});
