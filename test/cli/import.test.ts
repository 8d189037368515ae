// `wfs import --company ID FILE` (contract: operator side), run as a real process: counts per entity, a second
// import of the same document changes nothing, and a bad document is rejected whole with every path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migratedDatabase, type FreshDatabase } from '../support/database.ts';
import { baseDocument, contract, createdCounts, mixedProblems, NOTHING_CHANGED, user } from '../company/fixtures.ts';
import { createDatabase } from '../../src/platform/db/database.ts';
import { lastJson } from '../support/processes.ts';
import { wfs, wfsJson } from './wfs.ts';

let database: FreshDatabase;
let dir: string;
let companyId: string;

before(async () => {
  database = await migratedDatabase();
  dir = mkdtempSync(join(tmpdir(), 'wfs-import-'));
  const { organisationId } = (await wfsJson(database.url, ['create-organisation', '--name', 'Acme'])) as { organisationId: string };
  ({ companyId } = (await wfsJson(database.url, ['create-company', '--org', organisationId, '--name', 'Acme Utrecht', '--timezone', 'Europe/Amsterdam', '--currency', 'EUR'])) as { companyId: string });
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database.drop();
});

function documentFile(name: string, document: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof document === 'string' ? document : JSON.stringify(document));
  return file;
}

/** The audit entries of this company's imports, oldest first. */
async function auditedImports(): Promise<unknown[]> {
  const db = createDatabase(database.url);
  try {
    const rows = await db.selectFrom('audit_log').innerJoin('companies', 'companies.organisation_id', 'audit_log.organisation_id')
      .select(['audit_log.event', 'audit_log.actor_kind', 'audit_log.context']).where('companies.id', '=', companyId).where('audit_log.detail', '=', 'company_data_imported')
      .orderBy('audit_log.at').orderBy('audit_log.id').execute();
    return rows.map((row) => ({ ...row, context: JSON.parse(row.context ?? 'null') as unknown }));
  } finally {
    await db.destroy();
  }
}

function document(note: string | null = null) {
  return {
    ...baseDocument(),
    users: [user('ann')],
    contracts: [contract('ann-2020', 'ann')],
    shifts: [{ ref: 'ann-mon', userRef: 'ann', date: '2026-11-23', start: '09:00', end: '17:00', breakMinutes: 30, departmentRef: 'kitchen', positionRef: 'cook', shiftTypeRef: 'work', note }],
  };
}

test('import prints created/updated/deleted per entity; the same file again changes nothing; an edit updates', async () => {
  const file = documentFile('acme.json', document());
  const first = await wfsJson(database.url, ['import', '--company', companyId, file]);
  assert.deepEqual(
    first,
    createdCounts({ departments: 2, positions: 2, shiftTypes: 4, contractTypes: 1, users: 1, contracts: 1, shifts: 1 }),
  );
  const again = await wfsJson(database.url, ['import', '--company', companyId, file]);
  assert.deepEqual(again, NOTHING_CHANGED);
  const edited = await wfsJson(database.url, ['import', '--company', companyId, documentFile('edited.json', document('bring knives'))]);
  assert.deepEqual(edited.shifts, { created: 0, updated: 1, deleted: 0 });
  const audit = await auditedImports();
  assert.deepEqual(audit.slice(-3), [first, again, edited].map((counts) => ({ event: 'operator_change', actor_kind: 'operator', context: { companyId, counts } })), 'each import is an operator change of the company\'s organisation');
});

test('a bad document exits 1 with every problem at its path, and nothing is imported', async () => {
  const audited = (await auditedImports()).length;
  const bad = document();
  bad.shifts[0] = { ...bad.shifts[0]!, start: '25:00' };
  // A valid change and a valid new user beside the bad entries: neither may be stored.
  bad.departments[0] = { ref: 'kitchen', name: 'Renamed kitchen', code: 'KIT' };
  const file = documentFile('bad.json', { ...bad, users: [user('ann'), user('bob', { employmentStart: 'yesterday' }), user('cy')] });
  const run = await wfs(database.url, ['import', '--company', companyId, file, '--json']);
  assert.equal(run.code, 1);
  const body = lastJson(run);
  assert.match(String(body.error), /nothing was imported/);
  const paths = (body.errors as { path: string }[]).map((e) => e.path);
  assert.ok(paths.includes('/shifts/0/start'), paths.join(', '));
  assert.ok(paths.includes('/users/1/employmentStart'), paths.join(', '));
  assert.match(run.stderr, /\/shifts\/0\/start/);
  const db = createDatabase(database.url);
  try {
    const employees = await db.selectFrom('employees').select('ref').where('company_id', '=', companyId).orderBy('ref').execute();
    assert.deepEqual(employees.map((e) => e.ref), ['ann'], 'neither bob nor cy was imported');
    const kitchen = await db.selectFrom('departments').select('name').where('company_id', '=', companyId).where('ref', '=', 'kitchen').executeTakeFirstOrThrow();
    assert.equal(kitchen.name, 'Kitchen');
  } finally {
    await db.destroy();
  }
  assert.equal((await auditedImports()).length, audited, 'a rejected import is no change to audit');
});

test('a rejected document lists each entry\'s problems of shape and of reference together, as the operator API does', async () => {
  const { document: mixed, errors } = mixedProblems();
  const run = await wfs(database.url, ['import', '--company', companyId, documentFile('mixed.json', mixed), '--json']);
  assert.equal(run.code, 1);
  assert.deepEqual(lastJson(run), { error: `The import document has ${errors.length} problems; nothing was imported.`, errors });
});

test('a document with thousands of problems lists every one: 12,000 for 2,000 empty shifts, on both outputs', async () => {
  const file = documentFile('empty-shifts.json', { shifts: Array.from({ length: 2000 }, () => ({})) });
  const run = await wfs(database.url, ['import', '--company', companyId, file, '--json']);
  assert.equal(run.code, 1);
  const body = lastJson(run);
  assert.equal(body.error, 'The import document has 12000 problems; nothing was imported.');
  const errors = body.errors as Array<{ path: string; message: string }>;
  assert.equal(errors.length, 12_000);
  assert.deepEqual(errors.at(-1), { path: '/shifts/1999/shiftTypeRef', message: 'is required' });
  assert.match(run.stderr, /^Error: 12000 problem\(s\):\n {2}\/shifts\/0\/ref is required\n/);
  assert.equal(run.stderr.match(/^ {2}\/shifts\/\d+\/\w+ is required$/gm)?.length, 12_000);
});

test('an unreadable or malformed file and an unknown company exit 1 with {error}', async () => {
  const missing = await wfs(database.url, ['import', '--company', companyId, join(dir, 'absent.json'), '--json']);
  assert.equal(missing.code, 1);
  assert.match(String(lastJson(missing).error), /^Cannot read .*absent\.json: ENOENT\.$/);

  const malformed = await wfs(database.url, ['import', '--company', companyId, documentFile('broken.json', '{"departments": ['), '--json']);
  assert.equal(malformed.code, 1);
  assert.match(String(lastJson(malformed).error), /broken\.json is not valid JSON/);

  const unknown = await wfs(database.url, ['import', '--company', 'cmp_nope', documentFile('ok.json', document()), '--json']);
  assert.equal(unknown.code, 1);
  assert.deepEqual(lastJson(unknown), { error: 'No company cmp_nope.' });

  const noFile = await wfs(database.url, ['import', '--company', companyId, '--json']);
  assert.equal(noFile.code, 2);
  assert.match(String(lastJson(noFile).error), /missing required argument 'file'/);
});
