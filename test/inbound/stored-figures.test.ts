// The upsert's answer turned into written figures: in the drafts' order whatever order `returning`
// gave, created when the id is the one just generated, updated (with the stored id) otherwise. And
// the look-up that tells a batch of new keys on PostgreSQL, whose cost must not grow with the company.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { figureKey, storedEndsQuery, writtenFigures, type FigureDraft } from '../../src/inbound/stored-figures.ts';
import type { InboundItemsTable } from '../../src/inbound/tables.ts';
import type { Db } from '../../src/platform/db/database.ts';
import { createCompany, createOrganisation } from '../../src/iam/provisioning.ts';
import { ingestBatch } from '../../src/inbound/batch.ts';
import { revenueRules } from '../../src/inbound/revenue.ts';
import { addDays } from '../../src/platform/period.ts';
import { testDialect, useMigratedDatabase } from '../support/database.ts';
import { addDepartment } from '../timeclock/fixtures.ts';

function figure(i: number): { draft: FigureDraft; row: InboundItemsTable } {
  const period = { date: '2026-11-26', week: null, key: '2026-11-26', start: '2026-11-26', end: '2026-11-26' };
  const [departmentId, kind, category] = [`dep_${i % 2}`, 'realised', `c${i}`];
  const draft: FigureDraft = { departmentId, period, kind, category, amountMinor: i, hoursCenti: null, key: figureKey(departmentId, period.key, kind, category) };
  const row: InboundItemsTable = { id: `fig_new${i}`, company_id: 'cmp_a', stream: 'revenue', department_id: departmentId, date: period.date, week: null, period_key: period.key, period_start: period.start, period_end: period.end, kind, category, amount_minor: i, hours_centi: null, created_at: 1, updated_at: 1 };
  return { draft, row };
}

test('written figures follow the drafts, whether the answer comes in their order or not; unanswered ones are left out', () => {
  const figures = Array.from({ length: 6 }, (_, i) => figure(i));
  const rows = figures.map((f) => f.row);
  // Figure 1 unchanged (not answered), figure 3 updated (its stored id), the others created.
  const answered = [0, 2, 3, 4, 5].map((i) => ({ ...(figures[i] as { row: InboundItemsTable }).row, id: i === 3 ? 'fig_old3' : `fig_new${i}` }));
  const expected = [['fig_new0', true], ['fig_new2', true], ['fig_old3', false], ['fig_new4', true], ['fig_new5', true]];
  for (const order of [answered, [...answered].reverse(), [answered[2], answered[0], answered[4], answered[1], answered[3]]]) {
    // The drafts of a statement start at `from` in the whole batch's list.
    const written = writtenFigures(rows, [figure(99).draft, ...figures.map((f) => f.draft)], 1, { rows: order as InboundItemsTable[] });
    assert.deepEqual(written.map((w) => [w.row.id, w.created]), expected);
    assert.equal(written[2]?.row.category, 'c3');
  }
});

describe('the look-up of a batch\'s first and last keys (before a batch of new keys on PostgreSQL)', () => {
  const database = useMigratedDatabase();

  /** 3 batches of 1,000 figures (125 days × 4 departments × 2 kinds), a category each. */
  async function companyWithFigures(db: Db): Promise<{ companyId: string; departmentIds: string[] }> {
    const { organisationId } = await createOrganisation(db, { name: 'Probe Org' });
    const { companyId } = await createCompany(db, { organisationId, name: 'Probe', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' });
    const departmentIds = await Promise.all(['Kitchen', 'Bar', 'Floor', 'Terrace'].map((name) => addDepartment(db, companyId, name)));
    for (const category of ['a', 'b', 'c']) {
      const items = Array.from({ length: 1000 }, (_, i) => ({ departmentId: departmentIds[i % 4], date: addDays('2031-01-01', Math.floor(i / 8)), kind: i % 8 < 4 ? 'realised' : 'prognosis', category, amount: i }));
      assert.equal((await ingestBatch(db, companyId, revenueRules, items)).created, 1000);
    }
    return { companyId, departmentIds };
  }

  test('reads one period of the company at most, however many figures it holds', async () => {
    const { db } = database;
    const { companyId, departmentIds } = await companyWithFigures(db);
    const row = (date: string, departmentId: string, category: string): InboundItemsTable => ({ id: 'fig_x', company_id: companyId, stream: 'revenue', department_id: departmentId, date, week: null, period_key: date, period_start: date, period_end: date, kind: 'realised', category, amount_minor: 1, hours_centi: null, created_at: 1, updated_at: 1 });
    const [first, last] = [row('2031-01-01', departmentIds[0] as string, 'new'), row('2031-05-05', departmentIds[3] as string, 'new')];
    assert.deepEqual(await storedEndsQuery(db, [first, last]).execute(), []);
    assert.equal((await storedEndsQuery(db, [first, row('2031-01-01', departmentIds[0] as string, 'b')]).execute()).length, 1);
    const query = storedEndsQuery(db, [first, last]).compile();
    if (testDialect === 'postgres') {
      // Before: the company's whole range of an index, a buffer per figure or more (3,000 here).
      const plan = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, buffers) ${query.sql}`, [...query.parameters]));
      const text = plan.rows.map((line) => line['QUERY PLAN']).join('\n');
      // The first Buffers line is the whole statement's.
      assert.ok(Number(/Buffers: shared hit=(\d+)/.exec(text)?.[1]) < 100, text);
    } else {
      const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
      const searches = plan.rows.map((r) => r.detail).filter((detail) => /inbound_items/.test(detail));
      assert.equal(searches.length, 2, searches.join('\n'));
      for (const detail of searches) assert.match(detail, /^SEARCH inbound_items USING INDEX inbound_items_(key|period) \(company_id=\? AND stream=\? AND (period_key|period_start)=\?/);
    }
  });
});
