// One column of the table: every measurement against one set-up (a database and N instances).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from './options.ts';
import { BENCH_TIMEZONE, type BenchTenant } from './tenant.ts';
import { measureLoad, type LoadRequest, type LoadSettings } from './load.ts';
import { measureTimeclock, type Person } from './timeclock.ts';
import { measureRevenueBatch } from './revenue.ts';
import { measureChangeReads } from './changes.ts';
import { measureDeliveries } from './webhooks.ts';
import { compareTimeclock, type Variant } from './comparison.ts';
import { JsonClient } from './client.ts';
import type { Outcome } from './report.ts';
import type { LoadedCompany } from './company.ts';
import { startBareServer, startPeerServer, startTokenFloorServer, type Target } from './processes.ts';
import { addDays, today } from '../src/platform/period.ts';

/** What the scenarios of one database share; `people` carries each person's event count across columns. */
export interface Workload {
  readonly tenant: BenchTenant;
  /** Undefined when the company data could not be loaded (the reason is in `missingData`). */
  readonly company: LoadedCompany | undefined;
  readonly missingData: string;
  people: Person[] | undefined;
  readonly firstEventAt: number;
}

type Report = (rowId: string, outcome: Outcome) => void;

/** The run's options plus the watcher of the service under measurement (CPU, memory, event loop). */
export type RowSettings = BenchOptions & Pick<LoadSettings, 'observe'>;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** One request first: a missing endpoint (or a broken one) is reported instead of measured. */
async function probe(url: string, request: LoadRequest): Promise<string | undefined> {
  const response = await fetch(`${url}${request.path}`, { method: request.method ?? 'GET', headers: request.headers ?? {}, ...(request.body !== undefined ? { body: request.body } : {}) });
  const text = await response.text();
  if (response.ok || (response.status === 304 && request.notModifiedIsAnswer)) return undefined;
  if (response.status === 404 && !request.path.includes('?')) return 'endpoint not built yet';
  return `answered ${response.status}: ${text.slice(0, 120).replaceAll('|', '/')}`;
}

function httpRequests(workload: Workload): Record<string, LoadRequest> {
  const { tenant } = workload;
  const day = today(BENCH_TIMEZONE);
  return {
    config: { path: '/api/v1/company/configuration', headers: bearer(tenant.idToken) },
    token: {
      method: 'POST',
      path: '/api/v1/iam/oauth/token',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }),
    },
    idtoken: { method: 'POST', path: '/api/v1/iam/idToken', headers: bearer(tenant.refreshToken) },
    feed: { path: `/api/v1/feeds/timetable?date=${day}`, headers: bearer(tenant.idToken) },
    // What browsers, curl --compressed and fetch send.
    'feed-br': { path: `/api/v1/feeds/timetable?date=${day}`, headers: { ...bearer(tenant.idToken), 'accept-encoding': 'gzip, deflate, br' } },
    timetable: { path: `/api/v1/company/timetable?from=${day}&to=${addDays(day, 30)}`, headers: bearer(tenant.idToken) },
    users: { path: '/api/v1/company/users', headers: bearer(tenant.idToken) },
  };
}

const DATA_ROWS = new Set(['bare-feed', 'feed', 'feed-br', 'feed-304', 'timetable', 'users']);

/** The feed again, as a polling integrator sends it: with the ETag of the copy it already holds. */
async function revalidation(url: string, feed: LoadRequest): Promise<LoadRequest | string> {
  const response = await fetch(`${url}${feed.path}`, { headers: feed.headers ?? {} });
  await response.arrayBuffer();
  const etag = response.headers.get('etag');
  if (!response.ok || !etag) return `no ETag on the feed (${response.status})`;
  return { ...feed, headers: { ...feed.headers, 'if-none-match': etag }, notModifiedIsAnswer: true };
}

/**
 * The yardstick for the uncompressed feed: the same bytes the service just answered, sent by a bare
 * node:http server from memory with the same number of connections.
 */
async function measureBareFeed(url: string, feed: LoadRequest, settings: RowSettings): Promise<Outcome> {
  const response = await fetch(`${url}${feed.path}`, { headers: feed.headers ?? {} });
  const body = Buffer.from(await response.arrayBuffer());
  if (!response.ok) return { skipped: `the feed answered ${response.status}` };
  const dir = mkdtempSync(join(tmpdir(), 'wfs-bare-feed-'));
  try {
    const file = join(dir, 'feed.json');
    writeFileSync(file, body);
    const bare = await startBareServer(file);
    try {
      return { measurement: await measureLoad(bare.urls, { path: '/body' }, { ...settings, connections: settings.dataConnections }) };
    } finally {
      await bare.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A server of the token row's comparisons, started, checked with one request, loaded like the service, stopped. */
async function measureTokenComparison(rowId: string, server: Target, request: LoadRequest, options: BenchOptions, report: Report): Promise<void> {
  try {
    const problem = await probe(server.urls[0]!, request);
    report(rowId, problem ? { skipped: `${rowId} ${problem}` } : { measurement: await measureLoad(server.urls, request, options) });
  } finally {
    await server.stop();
  }
}

/**
 * The token row's comparisons, measured right after it with the same request shape and load: the
 * peer, oidc-provider's token endpoint (the client authenticating with its secret in the form body,
 * its JSON-less equivalent) with its default opaque tokens and again signing ES256 JWTs, then the
 * floor (bench/token-floor-server.ts).
 */
export async function runTokenComparisonRows(options: BenchOptions, report: Report): Promise<void> {
  const client = { id: 'bench-peer-client', secret: 'bench-peer-secret-0123456789abcdef' };
  const request: LoadRequest = {
    method: 'POST',
    path: '/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret }).toString(),
  };
  await measureTokenComparison('token-peer', await startPeerServer(client, 'opaque'), request, options, report);
  await measureTokenComparison('token-peer-jwt', await startPeerServer(client, 'jwt'), request, options, report);
  await measureTokenComparison('token-floor', await startTokenFloorServer(), request, options, report);
}

export async function runHttpRow(rowId: string, urls: readonly string[], workload: Workload, options: RowSettings, report: Report): Promise<void> {
  if (DATA_ROWS.has(rowId) && !workload.company) return report(rowId, { skipped: workload.missingData });
  const requests = httpRequests(workload);
  const feed = requests.feed!;
  // The bare server, not the service, works in that row: nothing of the service's to observe.
  if (rowId === 'bare-feed') return report(rowId, await measureBareFeed(urls[0]!, feed, { ...options, observe: undefined }));
  const request = rowId === 'feed-304' ? await revalidation(urls[0]!, feed) : requests[rowId];
  if (!request) throw new Error(`no request for ${rowId}`);
  if (typeof request === 'string') return report(rowId, { skipped: request });
  const problem = await probe(urls[0]!, request);
  if (problem) return report(rowId, { skipped: problem });
  // A few connections saturate the server on the heavy rows; more would only queue (and time out).
  const connections = DATA_ROWS.has(rowId) ? options.dataConnections : options.connections;
  report(rowId, { measurement: await measureLoad(urls, request, { ...options, connections }) });
}

/** The people who clock: the first page of the company's users (all have an active timeclock). */
async function timeclockPeople(url: string, workload: Workload, count: number): Promise<Person[]> {
  const client = new JsonClient(url, 1, bearer(workload.tenant.idToken));
  try {
    const page = await client.json<{ data: { id: string; timeclockActive: boolean }[] }>('GET', `/api/v1/company/users?limit=${Math.min(count, 1000)}`);
    return page.data.filter((u) => u.timeclockActive).map((u) => ({ userId: u.id, sent: 0 }));
  } finally {
    client.close();
  }
}

export async function runTimeclockRow(urls: readonly string[], workload: Workload, options: RowSettings, report: Report): Promise<void> {
  if (!workload.company) return report('timeclock', { skipped: workload.missingData });
  workload.people ??= await timeclockPeople(urls[0]!, workload, options.timeclockPeople);
  report('timeclock', {
    measurement: await measureTimeclock({
      urls,
      idToken: workload.tenant.idToken,
      people: workload.people,
      firstEventAt: workload.firstEventAt,
      concurrency: options.timeclockConcurrency,
      warmup: options.warmup,
      duration: options.duration,
      observe: options.observe,
    }),
  });
}

async function departmentIdsOf(url: string, workload: Workload): Promise<string[]> {
  const client = new JsonClient(url, 1, bearer(workload.tenant.idToken));
  try {
    return (await client.json<{ departments: { id: string }[] }>('GET', '/api/v1/company/configuration')).departments.map((d) => d.id);
  } finally {
    client.close();
  }
}

/**
 * The timeclock row and the same load against a build without the change log (bench/comparison.ts,
 * bench/without-change-log/): `timeclock` and `timeclock-plain`.
 */
export async function runTimeclockComparison(withIt: Variant, without: Variant, workload: Workload, options: BenchOptions, report: Report, settle: () => Promise<void>): Promise<void> {
  if (!workload.company) {
    for (const rowId of ['timeclock', 'timeclock-plain']) report(rowId, { skipped: workload.missingData });
    return;
  }
  workload.people ??= await timeclockPeople(withIt.urls[0]!, workload, options.timeclockPeople);
  const load = { idToken: workload.tenant.idToken, people: workload.people, firstEventAt: workload.firstEventAt, concurrency: options.timeclockConcurrency };
  const measured = await compareTimeclock(withIt, without, load, options.warmup, options.duration, settle);
  report('timeclock', { measurement: measured.with });
  report('timeclock-plain', { measurement: measured.without });
}

export async function runRevenueRows(url: string, workload: Workload, options: RowSettings, report: Report): Promise<void> {
  const departmentIds = await departmentIdsOf(url, workload);
  const problem = await probe(url, { method: 'POST', path: '/api/v1/company/revenue', headers: { ...bearer(workload.tenant.idToken), 'content-type': 'application/json' }, body: '{"items":[]}' });
  for (const variant of ['new', 'changed'] as const) {
    const rowId = `revenue-${variant}`;
    if (problem === 'endpoint not built yet') report(rowId, { skipped: problem });
    else if (departmentIds.length === 0) report(rowId, { skipped: workload.missingData });
    else report(rowId, { measurement: await measureRevenueBatch({ url, idToken: workload.tenant.idToken, departmentIds, firstDate: '2024-01-01', runs: options.batchRuns, variant, observe: options.observe }) });
  }
}

/** After the writes of the other rows the log holds the import's and the events' changes: read them all. */
export async function runChangesRow(url: string, workload: Workload, options: RowSettings, report: Report): Promise<void> {
  const problem = await probe(url, { path: '/api/v1/company/changes?limit=1', headers: bearer(workload.tenant.idToken) });
  if (problem) return report('changes', { skipped: problem });
  report('changes', { measurement: await measureChangeReads({ url, idToken: workload.tenant.idToken, warmup: options.warmup, duration: options.duration, observe: options.observe }) });
}

/** Deliveries of one revenue batch's changes to a local receiver (bench/webhooks.ts). */
export async function runWebhookRow(url: string, workload: Workload, options: RowSettings, report: Report): Promise<void> {
  const departmentIds = await departmentIdsOf(url, workload);
  if (departmentIds.length === 0) return report('webhooks', { skipped: workload.missingData });
  const problem = await probe(url, { path: '/api/v1/company/webhooks', headers: bearer(workload.tenant.idToken) });
  if (problem) return report('webhooks', { skipped: problem });
  report('webhooks', { measurement: await measureDeliveries({ url, idToken: workload.tenant.idToken, departmentIds, changes: options.webhookChanges, observe: options.observe }) });
}
