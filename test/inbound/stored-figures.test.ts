// The upsert's answer turned into written figures: in the drafts' order whatever order `returning`
// gave, created when the id is the one just generated, updated (with the stored id) otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { figureKey, writtenFigures, type FigureDraft } from '../../src/inbound/stored-figures.ts';
import type { InboundItemsTable } from '../../src/inbound/tables.ts';

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
