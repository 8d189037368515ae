import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTable, resourceParts, type Column } from '../../bench/report.ts';
import type { Measurement } from '../../bench/measurement.ts';

const measured = (perSecond: number): { measurement: Measurement } => ({ measurement: { perSecond, p99Ms: 5, failures: 0, samples: perSecond * 5 } });

function rowOf(table: string, startsWith: string): string {
  const line = table.split('\n').find((l) => l.startsWith(`| ${startsWith}`));
  assert.ok(line, `no row starting with ${startsWith} in\n${table}`);
  return line;
}

test('a share-of-bare target is marked against the small-JSON baseline', () => {
  const column: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['config', measured(26_000)]]) };
  assert.match(rowOf(renderTable([column]), 'GET /company/configuration'), /26,000\/s · p99 5\.0 ms · 65 % of bare · pass/);
  const below: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['config', measured(20_000)]]) };
  assert.match(rowOf(renderTable([below]), 'GET /company/configuration'), /50 % of bare · \*\*fail\*\*/);
});

test('each column takes its shares of its own bare measurement, or the first column\'s when it has none', () => {
  const sqlite: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['config', measured(26_000)]]) };
  const postgres: Column = { id: 'postgres', title: 'PostgreSQL', outcomes: new Map([['bare', measured(30_000)], ['config', measured(19_500)]]) };
  const double: Column = { id: 'postgres-2', title: 'PostgreSQL, 2 instances', outcomes: new Map([['config', measured(24_000)]]) };
  const config = rowOf(renderTable([sqlite, postgres, double]), 'GET /company/configuration');
  assert.match(config, /26,000\/s · p99 5\.0 ms · 65 % of bare · pass \| 19,500\/s · p99 5\.0 ms · 65 % of bare · pass \| 24,000\/s · p99 5\.0 ms · 60 % of bare · pass \|/);
});

test('the uncompressed feed is also set against the same body sent by a bare server in its own column', () => {
  const sqlite: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['bare-feed', measured(1_600)], ['feed', measured(1_200)]]) };
  const postgres: Column = { id: 'postgres', title: 'PostgreSQL', outcomes: new Map([['bare-feed', measured(2_000)], ['feed', measured(1_000)]]) };
  const table = renderTable([sqlite, postgres]);
  const feed = rowOf(table, 'GET /feeds/timetable, one day');
  assert.match(feed, /1,200\/s · p99 5\.0 ms · 3\.0 % of bare · 75 % of the same body from bare \|/);
  assert.match(feed, /1,000\/s · p99 5\.0 ms · 2\.5 % of bare · 50 % of the same body from bare \|/);
  assert.doesNotMatch(rowOf(table, 'bare `node:http`, the feed'), /same body/);
});

test('the token row is set against its peer, oidc-provider, in the same column: ×1.5 on SQLite, ×1.0 on PostgreSQL', () => {
  const column: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['token', measured(2_700)], ['token-peer', measured(3_200)]]) };
  const postgres: Column = { id: 'postgres', title: 'PostgreSQL', outcomes: new Map([['token', measured(3_300)], ['token-peer', measured(3_200)]]) };
  const table = renderTable([column, postgres]);
  assert.match(rowOf(table, 'POST /oauth/token'), /2,700\/s · p99 5\.0 ms · 6\.8 % of bare · ×0\.84 of oidc-provider · \*\*fail\*\*/);
  assert.match(rowOf(table, 'POST /oauth/token'), /×1\.03 of oidc-provider · pass/);
  assert.doesNotMatch(rowOf(table, 'peer: panva'), /of oidc-provider/);
});

test('the token row also shows its share of the signing floor measured in the same column', () => {
  const column: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['token', measured(6_000)], ['token-peer', measured(5_000)], ['token-floor', measured(12_000)]]) };
  const table = renderTable([column]);
  assert.match(rowOf(table, 'POST /oauth/token'), /×1\.20 of oidc-provider · 50 % of the signing floor · \*\*fail\*\*/);
  assert.match(rowOf(table, 'floor: bare'), /12,000\/s · p99 5\.0 ms · 30 % of bare \|/);
  assert.doesNotMatch(rowOf(table, 'peer: panva'), /signing floor/);
});

test('the token row also shows its ratio to the peer signing ES256 JWTs, as the service does; the verdict stays on the default peer', () => {
  const outcomes = new Map([['bare', measured(40_000)], ['token', measured(6_000)], ['token-peer', measured(5_000)], ['token-peer-jwt', measured(4_000)]]);
  const table = renderTable([{ id: 'sqlite', title: 'SQLite', outcomes }]);
  assert.match(rowOf(table, 'POST /oauth/token'), /×1\.20 of oidc-provider · ×1\.50 of oidc-provider signing ES256 JWTs · \*\*fail\*\*/);
  assert.match(rowOf(table, 'peer again'), /4,000\/s · p99 5\.0 ms · 10 % of bare \|/);
});

test('a row carries what it cost: service and PostgreSQL CPU, memory after it, event-loop p99', () => {
  const resources = { serviceCpu: 0.96, postgresCpu: 0.415, rssMiB: 261.6, loopP99Ms: 46.2 };
  const config = { measurement: { ...measured(20_000).measurement, resources } };
  const column: Column = { id: 'postgres', title: 'PostgreSQL', outcomes: new Map([['bare', measured(40_000)], ['config', config]]) };
  assert.match(rowOf(renderTable([column]), 'GET /company/configuration'), /50 % of bare · service CPU 96 % · PostgreSQL CPU 42 % · RSS 262 MiB · loop p99 46 ms/);
});

test('on SQLite no PostgreSQL share is shown, and a missing figure is left out rather than shown as zero', () => {
  assert.deepEqual(resourceParts({ serviceCpu: 0.5 }), ['service CPU 50 %']);
  assert.deepEqual(resourceParts(undefined), []);
});

test('a rate of deliveries is shown with its unit, never as a share of bare, and judged only on the database its target names', () => {
  const sqlite: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['webhooks', measured(1_600)]]) };
  const postgres: Column = { id: 'postgres', title: 'PostgreSQL', outcomes: new Map([['webhooks', measured(400)]]) };
  const row = rowOf(renderTable([sqlite, postgres]), 'webhook deliveries');
  assert.match(row, /\| ≥ 1,000\/s on SQLite \| 1,600 deliveries\/s · p99 5\.0 ms · pass \| 400 deliveries\/s · p99 5\.0 ms \|$/);
});

test('the timeclock row without the change log shows what the change log costs, judged against 15 %', () => {
  const column: Column = { id: 'sqlite', title: 'SQLite', outcomes: new Map([['bare', measured(40_000)], ['timeclock', measured(2_700)], ['timeclock-plain', measured(3_000)]]) };
  assert.match(rowOf(renderTable([column]), 'POST /timeclock/events, the same without'), /\| the change log costs ≤ 15 % \| 3,000\/s · p99 5\.0 ms · 7\.5 % of bare · the change log costs 10\.0 % · pass \|$/);
  column.outcomes.set('timeclock', measured(2_400));
  assert.match(rowOf(renderTable([column]), 'POST /timeclock/events, the same without'), /the change log costs 20\.0 % · \*\*fail\*\*/);
});

test('with CPU watched, the timeclock row also shows CPU per request with and without the change log, and its share', () => {
  const watched = (perSecond: number, serviceCpu: number, postgresCpu: number) => ({ measurement: { ...measured(perSecond).measurement, resources: { serviceCpu, postgresCpu } } });
  // With: 0.5 + 0.5 cores at 2,000/s = 500 µs; without: 0.4 + 0.5 cores at 2,250/s = 400 µs.
  const column: Column = { id: 'postgres', title: 'PostgreSQL', outcomes: new Map([['timeclock', watched(2_000, 0.5, 0.5)], ['timeclock-plain', watched(2_250, 0.4, 0.5)]]) };
  assert.match(rowOf(renderTable([column]), 'POST /timeclock/events, the same without'), /the change log costs 11\.1 % · CPU per request 500 µs with it, 400 µs without: 20\.0 % of CPU · service CPU 40 %/);
});
