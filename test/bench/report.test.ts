import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTable, type Column } from '../../bench/report.ts';
import type { Measurement } from '../../bench/measurement.ts';

const measured = (perSecond: number): { measurement: Measurement } => ({ measurement: { perSecond, p99Ms: 5, failures: 0, samples: perSecond * 5 } });

function rowOf(table: string, startsWith: string): string {
  const line = table.split('\n').find((l) => l.startsWith(`| ${startsWith}`));
  assert.ok(line, `no row starting with ${startsWith} in\n${table}`);
  return line;
}

test('a share-of-bare target is marked against the small-JSON baseline', () => {
  const column: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['config', measured(20_000)]]) };
  assert.match(rowOf(renderTable([column]), 'GET /company/configuration'), /20,000\/s · p99 5\.0 ms · 50 % of bare · pass/);
});

test('the uncompressed feed is also set against the same body sent by a bare server in its own column', () => {
  const sqlite: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['bare-feed', measured(1_600)], ['feed', measured(1_200)]]) };
  const postgres: Column = { id: 'postgres', title: 'PostgreSQL', outcomes: new Map([['bare-feed', measured(2_000)], ['feed', measured(1_000)]]) };
  const table = renderTable([sqlite, postgres]);
  const feed = rowOf(table, 'GET /feeds/timetable, one day');
  assert.match(feed, /1,200\/s · p99 5\.0 ms · 3\.0 % of bare · 75 % of the same body from bare · \*\*fail\*\*/);
  assert.match(feed, /1,000\/s · p99 5\.0 ms · 2\.5 % of bare · 50 % of the same body from bare · \*\*fail\*\*/);
  assert.doesNotMatch(rowOf(table, 'bare `node:http`, the feed'), /same body/);
});
