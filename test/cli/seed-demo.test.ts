// `wfs seed-demo --seed <n>`, run as a real process: the demo data is the same for the same seed (on
// the same day) on any database, another seed gives other data, no --seed means seed 1, and a seed
// that is not a whole number from 0 to 2^32 − 1 is a usage error. Every run is dated from one day
// (`--date`), so no run of this file depends on when it happens (near midnight in Amsterdam, say).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { migratedDatabase, type FreshDatabase } from '../support/database.ts';
import { createDatabase } from '../../src/platform/db/database.ts';
import { lastJson } from '../support/processes.ts';
import { wfs, wfsJson } from './wfs.ts';

const TABLES = ['departments', 'positions', 'shift_types', 'contract_types', 'employees', 'contracts', 'shifts'] as const;
/** What differs between two imports of the same document: generated ids and the time of the import. */
const GENERATED = new Set(['id', 'company_id', 'organisation_id', 'updated_at', 'activated_at']);

type Content = Record<string, Array<Record<string, unknown>>>;

/**
 * The demo company's data without what is generated: every row by its ref, each reference to another
 * row (also inside the JSON lists of an employee's departments and positions) written as that row's ref.
 */
async function companyContent(url: string, companyId: string): Promise<Content> {
  const db = createDatabase(url);
  try {
    const rows: Record<string, Array<Record<string, unknown>>> = {};
    for (const table of TABLES) rows[table] = await db.selectFrom(table).selectAll().where('company_id', '=', companyId).execute();
    const refOf = new Map(Object.values(rows).flat().map((row) => [String(row.id), `ref:${String(row.ref)}`]));
    const byRef = (value: unknown): unknown => {
      if (typeof value !== 'string') return value;
      if (refOf.has(value)) return refOf.get(value);
      return value.startsWith('[') ? JSON.stringify((JSON.parse(value) as string[]).map((id) => refOf.get(id) ?? id)) : value;
    };
    return Object.fromEntries(
      TABLES.map((table) => [
        table,
        (rows[table] ?? [])
          .map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !GENERATED.has(column)).map(([column, value]) => [column, byRef(value)])))
          .sort((a, b) => (String(a.ref) < String(b.ref) ? -1 : 1)),
      ]),
    );
  } finally {
    await db.destroy();
  }
}

/** The day every seed of this file is dated from: today in Amsterdam, as the demo's default is. */
const DAY = DateTime.now().setZone('Europe/Amsterdam').toISODate() ?? '';

async function seedDemo(database: FreshDatabase, args: string[] = []): Promise<Content> {
  const demo = (await wfsJson(database.url, ['seed-demo', '--date', DAY, ...args])) as { companyId: string };
  return companyContent(database.url, demo.companyId);
}

let first: FreshDatabase;
let second: FreshDatabase;

before(async () => {
  [first, second] = await Promise.all([migratedDatabase(), migratedDatabase()]);
});
after(async () => {
  await Promise.all([first?.drop(), second?.drop()]);
});

test('seed-demo --seed gives the same data on two fresh databases, another seed other data, none seed 1', async () => {
  const [[seven, eight, unseeded], [sevenAgain, one]] = await Promise.all([
    (async () => [await seedDemo(first, ['--seed', '7']), await seedDemo(first, ['--seed', '8']), await seedDemo(first)])(),
    (async () => [await seedDemo(second, ['--seed', '7']), await seedDemo(second, ['--seed', '1'])])(),
  ]);
  assert.ok((seven?.employees?.length ?? 0) >= 40, 'about fifty employees');
  assert.ok((seven?.contracts?.length ?? 0) >= 40, 'their contracts');
  assert.ok((seven?.shifts?.length ?? 0) > 500, 'shifts from today − 8 to today + 38');

  assert.deepEqual(sevenAgain, seven, 'the same seed, the same data');
  assert.notDeepEqual(eight?.employees, seven?.employees, 'another seed, other employees');
  assert.notDeepEqual(eight?.shifts, seven?.shifts, 'another seed, other shifts');
  assert.deepEqual(unseeded, one, 'no --seed is seed 1');
  assert.notDeepEqual(one, seven);
});

test('--date dates the demo from that day: its shifts run from 8 days before it to 38 days after', async () => {
  const shifts = (await seedDemo(second, ['--seed', '3', '--date', '2027-02-10'])).shifts?.map((shift) => String(shift.date)).sort() ?? [];
  assert.ok(shifts.length > 500);
  assert.deepEqual([shifts[0], shifts.at(-1)], ['2027-02-02', '2027-03-20']);
});

test('--seed must be a whole number from 0 to 4294967295 and --date a date (exit 2), and seed-demo --help describes them', async () => {
  const [runs, dates] = await Promise.all([
    Promise.all(['soon', '-1', '1.5', '1e3', '4294967296', ''].map((seed) => wfs(first.url, ['seed-demo', '--seed', seed, '--json']))),
    Promise.all(['2027-02-30', 'tomorrow'].map((date) => wfs(first.url, ['seed-demo', '--date', date, '--json']))),
  ]);
  for (const run of runs) {
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(String(lastJson(run).error), /--seed <n>.*whole number from 0 to 4294967295/);
  }
  for (const run of dates) {
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(String(lastJson(run).error), /--date <YYYY-MM-DD>.*must be a date as YYYY-MM-DD/);
  }
  const help = await wfs(first.url, ['seed-demo', '--help']);
  assert.equal(help.code, 0);
  const text = help.stdout.replace(/\s+/g, ' ');
  assert.match(text, /--seed <n> seed of the demo data \(whole number, 0 to 4294967295\)/);
  assert.match(text, /the same seed on the same day gives the same .* \(default 1\)/);
  assert.match(text, /--date <YYYY-MM-DD> the day the demo data is dated from, in Europe\/Amsterdam \(default today\)/);
});
