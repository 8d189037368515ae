// GET /metrics (contract: addresses and configuration): the Prometheus text format behind `Authorization: Bearer <METRICS_TOKEN>`,
// 404 while METRICS_TOKEN is unset. The series operators page on are there and move with real traffic.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { startTestServer, useTestServer } from '../support/server.ts';
import { useCompanyServer } from '../support/company.ts';
import { bearer } from '../support/tenants.ts';
import { testDialect } from '../support/database.ts';
import { addEmployee } from '../timeclock/fixtures.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const company = useCompanyServer({ env: { METRICS_TOKEN }, inProcess: true });
const unconfigured = useTestServer({}, { inProcess: true });

async function scrape(baseUrl: string): Promise<string> {
  const response = await company.server.fetch(`${baseUrl}/metrics`, { headers: bearer(METRICS_TOKEN) });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one series, e.g. `wfs_tokens_issued_total{grant_type="client_credentials"}`; undefined when absent. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('while METRICS_TOKEN is unset, /metrics answers 404 problem+json, even to a Bearer token', async () => {
  const response = await unconfigured.fetch(`${unconfigured.baseUrl}/metrics`, { headers: bearer(METRICS_TOKEN) });
  assert.equal(response.status, 404);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(((await response.json()) as { code: string }).code, 'not_found');
});

test('without a token /metrics is 401 missing_token, with a wrong one 401 invalid_token (a prefix of the right one included)', async () => {
  const base = company.server.baseUrl;
  const missing = await company.server.fetch(`${base}/metrics`);
  assert.equal(missing.status, 401);
  assert.equal(((await missing.json()) as { code: string }).code, 'missing_token');
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="metrics"');
  for (const wrong of ['wrong-token-0123456789abcdef', METRICS_TOKEN.slice(0, -1), `${METRICS_TOKEN}x`]) {
    const refused = await company.server.fetch(`${base}/metrics`, { headers: bearer(wrong) });
    assert.equal(refused.status, 401, wrong);
    const body = await refused.text();
    assert.equal((JSON.parse(body) as { code: string }).code, 'invalid_token');
    assert.doesNotMatch(body, /wfs_|nodejs_/);
  }
  // The company's ID token is no metrics token either.
  assert.equal((await company.server.fetch(`${base}/metrics`, { headers: bearer(company.token) })).status, 401);
});

test('requests are counted by route pattern and status, never by raw URL', async () => {
  const base = company.server.baseUrl;
  const before = await scrape(base);
  const healthz = 'wfs_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}';
  for (let i = 0; i < 3; i += 1) assert.equal((await company.server.fetch(`${base}/healthz`)).status, 200);
  // The operator API is off on this server (no ADMIN_TOKEN): its route matches and answers 404.
  const imported = await company.server.fetch(`${base}/api/v1/admin/companies/cmp_does_not_exist_123/import`, { method: 'POST' });
  assert.equal(imported.status, 404);
  assert.equal((await company.server.fetch(`${base}/no/such/path/secret-looking-value`)).status, 404);
  const after = await scrape(base);
  assert.equal((value(after, healthz) ?? 0) - (value(before, healthz) ?? 0), 3);
  assert.ok((value(after, 'wfs_http_request_duration_seconds_count{method="POST",route="/api/v1/admin/companies/:companyId/import",status="404"}') ?? 0) >= 1, 'the route pattern with its parameter name');
  assert.ok((value(after, 'wfs_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}') ?? 0) >= 1);
  assert.doesNotMatch(after, /cmp_does_not_exist_123|secret-looking-value/);
  // A histogram: cumulative buckets up to +Inf, equal to the count.
  assert.equal(value(after, 'wfs_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/healthz",status="200"}'), value(after, healthz));
});

test('the event-loop delay, process figures and (on PostgreSQL) the pool are exposed', async () => {
  const text = await scrape(company.server.baseUrl);
  for (const series of ['nodejs_eventloop_lag_p99_seconds', 'process_resident_memory_bytes', 'process_cpu_seconds_total']) {
    assert.ok(value(text, series) !== undefined, series);
  }
  if (testDialect === 'postgres') {
    assert.ok((value(text, 'wfs_db_pool_max') ?? 0) >= 1);
    assert.ok(value(text, 'wfs_db_pool_connections{state="idle"}') !== undefined);
  } else {
    assert.doesNotMatch(text, /wfs_db_pool/);
  }
});

test('tokens issued are counted by grant type, with the commits (and group sizes) that stored their grants', async () => {
  const base = company.server.baseUrl;
  const { clientId, clientSecret } = company.tenant;
  await setGrantEnabled(company.server.ctx.db, clientId, 'client_credentials', true);
  const before = await scrape(base);
  const tokens = 'wfs_tokens_issued_total{grant_type="client_credentials"}';
  const commits = 'wfs_db_commit_group_size_sum{kind="plain"}';
  const answers = await Promise.all([1, 2, 3, 4].map(() => company.server.fetch(`${base}/api/v1/iam/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  })));
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200]);
  const refused = await company.server.fetch(`${base}/api/v1/iam/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'wrong' }) });
  assert.equal(refused.status, 401);
  const after = await scrape(base);
  assert.equal((value(after, tokens) ?? 0) - (value(before, tokens) ?? 0), 4, 'a refused request issues nothing');
  // Each token's grant and audit entry are one write of a grouped commit.
  assert.ok((value(after, commits) ?? 0) - (value(before, commits) ?? 0) >= 4);
  assert.ok((value(after, 'wfs_db_commit_duration_seconds_count{kind="plain"}') ?? 0) > (value(before, 'wfs_db_commit_duration_seconds_count{kind="plain"}') ?? 0));
});

test('accepted timeclock events are counted, and their durable commits timed', async () => {
  const base = company.server.baseUrl;
  const employee = await addEmployee(company.server.ctx.db, company.tenant);
  const before = await scrape(base);
  const event = { eventId: randomUUID(), userId: employee.id, type: 'clock_in', occurredAt: new Date(Date.now() - 60_000).toISOString(), source: 'terminal' };
  for (const body of [event, event]) {
    const answer = await company.server.fetch(`${base}/api/v1/timeclock/events`, { method: 'POST', headers: { ...bearer(company.token), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(answer.status, 200);
  }
  const out = await company.server.fetch(`${base}/api/v1/timeclock/events`, { method: 'POST', headers: { ...bearer(company.token), 'content-type': 'application/json' }, body: JSON.stringify({ ...event, eventId: randomUUID(), type: 'clock_in', occurredAt: new Date(Date.now() - 120_000).toISOString() }) });
  assert.equal(out.status, 409);
  const after = await scrape(base);
  assert.equal((value(after, 'wfs_timeclock_events_total') ?? 0) - (value(before, 'wfs_timeclock_events_total') ?? 0), 2, 'the event and its replay, not the refused one');
  assert.equal((value(after, 'wfs_db_commit_duration_seconds_count{kind="durable"}') ?? 0) - (value(before, 'wfs_db_commit_duration_seconds_count{kind="durable"}') ?? 0), 1, 'one durable commit: the replay stores nothing');
});

test('without METRICS_TOKEN no request is timed: the figures nobody can read cost nothing', async () => {
  const own = await startTestServer({}, { inProcess: true });
  try {
    assert.equal(own.ctx.metrics.exposed, false);
    await own.fetch(`${own.baseUrl}/healthz`);
    assert.doesNotMatch(await own.ctx.metrics.text(), /wfs_http_request_duration_seconds_count/);
  } finally {
    await own.close();
  }
});

/** The series an expression names, without the _bucket/_count/_sum of a histogram. */
function seriesIn(text: string): string[] {
  const names = text.match(/\b(?:wfs|nodejs|process)_[a-z0-9_]+/g) ?? [];
  return [...new Set(names.map((name) => name.replace(/_(bucket|count|sum)$/, '')))];
}

test('every series the Grafana dashboard and the paging alerts query is one the service exposes', async () => {
  const exposed = new Set([...(await scrape(company.server.baseUrl)).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
  const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> };
  const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const alerts = operations.slice(operations.indexOf('### Alerts worth paging on'), operations.indexOf('#### Runbook'));
  const queried = seriesIn([...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), alerts].join('\n'));
  assert.ok(queried.length > 10);
  // The change log's webhook series are registered by that feature (docs/operations.md, "Adding series").
  const missing = queried.filter((name) => !name.startsWith('wfs_webhook_') && !exposed.has(name));
  // The pool exists only on PostgreSQL.
  assert.deepEqual(missing.filter((name) => testDialect === 'postgres' || !name.startsWith('wfs_db_pool')), []);
});
