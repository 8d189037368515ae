// Migration 0017 keeps the change log's retention horizon per (company, change type), so pruning a
// change of one type no longer expires cursors filtered to other types. A company-wide horizon written
// before it, or by an older release still pruning during a rolling deploy, is a horizon of every type;
// this release keeps the company-wide one up to date for such an older release's reads; down leaves it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { down, up } from '../../../../src/platform/db/migrations/0017_change_horizons_by_type.ts';
import { useMigratedDatabase } from '../../../support/database.ts';
import { CHANGE_TYPES, recordChanges } from '../../../../src/changes/change-log.ts';
import { readChangeWindow } from '../../../../src/changes/change-reads.ts';
import { prunedThrough, pruneChanges } from '../../../../src/changes/retention.ts';

const database = useMigratedDatabase();
const migrations = () => database.db as unknown as Kysely<unknown>;

/** The statement an older release prunes with (the company-wide horizon only). */
const olderReleasePrunes = (companyId: string, seq: number) =>
  sql`insert into company_change_horizons (company_id, pruned_through) values (${companyId}, ${seq})
    on conflict (company_id) do update set pruned_through = case when excluded.pruned_through > company_change_horizons.pruned_through then excluded.pruned_through else company_change_horizons.pruned_through end`.execute(database.db);

async function everyTypeAt(companyId: string, seq: number): Promise<void> {
  for (const type of CHANGE_TYPES) assert.equal(await prunedThrough(database.db, companyId, [type]), seq, type);
  assert.equal(await prunedThrough(database.db, companyId, []), seq, 'unfiltered');
}

test('a company-wide horizon from before the migration holds back every types filter', async () => {
  await migrations().transaction().execute((trx) => down(trx));
  await database.db.insertInto('company_change_horizons').values({ company_id: 'cmp_before', pruned_through: 50 }).execute();
  await migrations().transaction().execute((trx) => up(trx));
  await everyTypeAt('cmp_before', 50);
  assert.equal(await prunedThrough(database.db, 'cmp_unknown', ['shift.created']), 0);
});

test('an older release pruning during a rolling deploy raises the horizon of every type', async () => {
  await olderReleasePrunes('cmp_rolling', 70);
  await everyTypeAt('cmp_rolling', 70);
  await olderReleasePrunes('cmp_rolling', 90);
  await everyTypeAt('cmp_rolling', 90);
});

test('pruning raises the horizons of the pruned types only, and the company-wide horizon an older release reads', async () => {
  const time = { at: 1_000, timezone: 'UTC' };
  await recordChanges(database.db, 'cmp_pruned', [{ resourceType: 'revenue_item', action: 'created', resourceId: 'rev_1', data: {} }], time);
  await recordChanges(database.db, 'cmp_pruned', [{ resourceType: 'shift', action: 'created', resourceId: 'sft_1', data: {} }], { ...time, at: 5_000 });
  const [revenue, shift] = (await readChangeWindow(database.db, 'cmp_pruned', { afterSeq: 0, limit: 10 })).changes;
  assert.ok(revenue && shift);
  assert.equal(await pruneChanges(database.db, 2_000), 1);
  assert.equal(await prunedThrough(database.db, 'cmp_pruned', ['revenue_item.created']), revenue.seq);
  assert.equal(await prunedThrough(database.db, 'cmp_pruned', ['shift.created', 'revenue_item.created']), revenue.seq);
  assert.equal(await prunedThrough(database.db, 'cmp_pruned', []), revenue.seq);
  assert.equal(await prunedThrough(database.db, 'cmp_pruned', ['shift.created']), 0, 'no shift was pruned');
  const companyWide = await database.db.selectFrom('company_change_horizons').select('pruned_through').where('company_id', '=', 'cmp_pruned').executeTakeFirst();
  assert.equal(Number(companyWide?.pruned_through), revenue.seq);

  await migrations().transaction().execute((trx) => down(trx));
  assert.ok(!(await database.db.introspection.getTables()).some((table) => table.name === 'company_change_type_horizons'));
  await olderReleasePrunes('cmp_pruned', shift.seq);
  await migrations().transaction().execute((trx) => up(trx));
  await everyTypeAt('cmp_pruned', shift.seq);
});
