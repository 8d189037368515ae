// `npm run bench`: the performance benchmark of issues 2–5. Starts a bare node:http baseline and the
// real service (child processes) on a fresh SQLite file and a fresh PostgreSQL database, loads a
// company of 1,000 employees, measures each endpoint for a few seconds, then prints the table and
// writes it into docs/benchmarks.md. Bounded in time; everything it starts, it stops.
import { readOptions, type Dialect } from './options.ts';
import { analyzeTimeclockTables, freshBenchDatabase, type BenchDatabase } from './databases.ts';
import { BENCH_METRICS_TOKEN, startBareServer, startService, type ServiceSettings, type Target } from './processes.ts';
import { measureLoad, requireWrk } from './load.ts';
import { BENCH_BASE_URL, openBenchContext, provisionBenchTenant, closeContext } from './tenant.ts';
import { loadCompany, type LoadedCompany } from './company.ts';
import { runChangesRow, runHttpRow, runTokenComparisonRows, runRevenueRows, runTimeclockComparison, runTimeclockRow, runWebhookRow, type Workload } from './columns.ts';
import { observer } from './resources.ts';
import { ROWS, groupOf } from './scenarios.ts';
import { renderNotes, renderTable, writeSection, type Column, type Outcome } from './report.ts';
import { currentLoad, describeMachine, gitCommit } from './environment.ts';

const options = (() => {
  try {
    return readOptions();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n(npm run bench -- --help lists the options)\n`);
    process.exit(2);
  }
})();
const wants = (group: string) => options.only.length === 0 || options.only.includes(group);
const log = (message: string) => process.stderr.write(`${message}\n`);
const DOC = new URL('../docs/benchmarks.md', import.meta.url).pathname;
const TITLES: Record<Dialect, string> = { sqlite: 'SQLite, 1 instance', postgres: 'PostgreSQL, 1 instance' };
const HTTP_ROWS = ['config', 'token', 'idtoken', 'bare-feed', 'feed', 'feed-br', 'feed-304', 'timetable', 'users'];
const DAY_MS = 86_400_000;

function recorder(column: Column) {
  return (rowId: string, outcome: Outcome) => {
    column.outcomes.set(rowId, outcome);
    const text = 'skipped' in outcome ? `skipped: ${outcome.skipped}` : JSON.stringify(outcome.measurement, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v));
    log(`  [${column.title}] ${rowId}: ${text}`);
  };
}

async function measureBare(): Promise<Outcome> {
  const bare = await startBareServer();
  try {
    log('bare node:http baseline');
    const measurement = await measureLoad(bare.urls, { path: '/' }, options);
    log(`  bare: ${Math.round(measurement.perSecond ?? 0)}/s, p99 ${measurement.p99Ms} ms`);
    return { measurement };
  } finally {
    await bare.stop();
  }
}

const needsData = () => ['feed', 'timetable', 'users', 'timeclock', 'revenue', 'changes', 'webhooks'].some(wants);

async function prepareWorkload(databaseUrl: string, dialect: Dialect): Promise<Workload> {
  const ctx = await openBenchContext(databaseUrl);
  try {
    const tenant = await provisionBenchTenant(ctx);
    let company: LoadedCompany | undefined;
    let missingData = 'not selected';
    if (needsData()) {
      try {
        log(`[${dialect}] loading ${options.employees} employees, ${options.shiftsPerDay} shifts a day for ${options.days} days`);
        company = await loadCompany(ctx, tenant.companyId, options);
        log(`[${dialect}] loaded ${company.shifts} shifts in ${company.seconds.toFixed(1)} s`);
      } catch (error) {
        missingData = `no company data: ${(error as Error).message.slice(0, 100)}`;
        log(`[${dialect}] ${missingData}`);
      }
    }
    // Events start 20 days back, a minute apart per person, so no run reaches the present.
    return { tenant, company, missingData, people: undefined, firstEventAt: Math.floor(Date.now() / DAY_MS) * DAY_MS - 20 * DAY_MS };
  } finally {
    await closeContext(ctx);
  }
}

const watch = (service: Target) => observer({ pids: service.pids, urls: service.urls, metricsToken: BENCH_METRICS_TOKEN, ...(service.postgresDatabase ? { postgresDatabase: service.postgresDatabase } : {}) });

async function runColumn(column: Column, dialect: Dialect, service: Target, workload: Workload, rows: readonly string[]): Promise<void> {
  const report = recorder(column);
  const { urls } = service;
  const settings = { ...options, observe: watch(service) };
  for (const rowId of rows.filter((id) => wants(groupOf(id)))) {
    if (HTTP_ROWS.includes(rowId)) {
      await runHttpRow(rowId, urls, workload, settings, report);
      // The peer and the floor right after, in the same conditions, so the ratios compare like with like.
      if (rowId === 'token') await runTokenComparisonRows(options, report);
    } else if (rowId === 'timeclock') await runTimeclockRow(urls, workload, settings, report);
    else if (rowId === 'revenue') await runRevenueRows(urls[0]!, workload, settings, report);
    else if (rowId === 'changes') await runChangesRow(urls[0]!, workload, settings, report);
    else if (rowId === 'webhooks') await runWebhookRow(urls[0]!, workload, settings, report);
  }
}

async function withService(settings: ServiceSettings, instances: number, body: (service: Target) => Promise<void>): Promise<void> {
  const service = await startService(settings, instances);
  try {
    await body(service);
  } finally {
    await service.stop();
  }
}

/**
 * The single-instance column: the HTTP rows in one service; then, in a second one, the timeclock row
 * alternating with a build without the change log started beside it on the same database
 * (bench/comparison.ts), and the other write and change rows. Webhooks last: nothing else should
 * share the service with deliveries.
 */
async function runSingleColumn(column: Column, dialect: Dialect, settings: ServiceSettings, workload: Workload, database: BenchDatabase): Promise<void> {
  if (HTTP_ROWS.some((id) => wants(groupOf(id)))) await withService(settings, 1, (service) => runColumn(column, dialect, service, workload, HTTP_ROWS));
  const writes = ['revenue', 'changes', 'webhooks'];
  if (!wants('timeclock') && !writes.some(wants)) return;
  await withService(settings, 1, async (service) => {
    if (wants('timeclock')) {
      await withService({ ...settings, withoutChangeLog: true }, 1, (plain) =>
        runTimeclockComparison({ urls: service.urls, observe: watch(service) }, { urls: plain.urls, observe: watch(plain) }, workload, options, recorder(column), () => analyzeTimeclockTables(database)));
    }
    await runColumn(column, dialect, service, workload, writes);
  });
}

/** A set-up that cannot start (PostgreSQL down, a server that will not boot) fails its column, not the run. */
async function runColumnSafely(column: Column, columns: Column[], body: () => Promise<void>): Promise<void> {
  columns.push(column);
  try {
    await body();
  } catch (error) {
    const reason = `run failed: ${(error as Error).message.split('\n')[0]?.slice(0, 120) ?? 'unknown error'}`;
    log(`[${column.title}] ${reason}`);
    for (const row of ROWS) if (row.id !== 'bare' && !column.outcomes.has(row.id) && wants(row.group)) column.outcomes.set(row.id, { skipped: reason });
  }
}

async function runDatabase(dialect: Dialect, columns: Column[]): Promise<LoadedCompany | undefined> {
  let company: LoadedCompany | undefined;
  const single: Column = { id: dialect, title: TITLES[dialect], outcomes: new Map() };
  await runColumnSafely(single, columns, async () => {
    const database = await freshBenchDatabase(dialect, options.postgresUrl);
    dropOnInterrupt.add(database.drop);
    try {
      const workload = await prepareWorkload(database.url, dialect);
      company = workload.company;
      const settings = { databaseUrl: database.url, baseUrl: BENCH_BASE_URL, logLevel: options.logLevel, nodeOptions: options.serverNodeOptions };
      // Each column's shares are of a baseline measured just before its rows: the machine drifts.
      single.outcomes.set('bare', await measureBare());
      await runSingleColumn(single, dialect, settings, workload, database);
      if (dialect === 'postgres' && options.twoInstances && (wants('config') || wants('timeclock'))) {
        const double: Column = { id: 'postgres-2', title: 'PostgreSQL, 2 instances (same 2 cores)', outcomes: new Map(), scalesFrom: 'postgres' };
        await runColumnSafely(double, columns, async () => {
          double.outcomes.set('bare', await measureBare());
          await withService(settings, 2, (two) => runColumn(double, dialect, two, workload, ['config', 'timeclock']));
        });
      }
    } finally {
      dropOnInterrupt.delete(database.drop);
      await database.drop();
    }
  });
  return company;
}

// Ctrl-C: drop the databases still in use (bounded), then exit; exit handlers kill the servers.
const dropOnInterrupt = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`\n${signal}: stopping`);
    const drops = Promise.allSettled([...dropOnInterrupt].map((drop) => drop()));
    void Promise.race([drops, new Promise((resolve) => setTimeout(resolve, 5000))]).then(() => process.exit(130));
  });
}

function commandLine(): string {
  const args = process.argv.slice(2);
  return `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = currentLoad();
  const columns: Column[] = [];
  const loads: string[] = [];
  await requireWrk(log);
  for (const dialect of options.databases) {
    log(`[${dialect}] fresh database`);
    const company = await runDatabase(dialect, columns);
    if (company) loads.push(`${TITLES[dialect].split(',')[0]}: ${company.shifts.toLocaleString('en-US')} shifts over ${company.days} days (from ${company.firstDate}) loaded through importCompanyData in ${company.seconds.toFixed(0)} s`);
  }
  if (columns.length === 0) columns.push({ id: 'bare', title: 'baseline', outcomes: new Map([['bare', await measureBare()]]) });

  const notes = renderNotes(columns);
  const section = [
    `Generated by \`${commandLine()}\` on ${new Date(started).toISOString().slice(0, 16).replace('T', ' ')} UTC at commit \`${gitCommit()}\`, in ${Math.round((Date.now() - started) / 1000)} s.`,
    await describeMachine(options.postgresUrl, loadAtStart),
    `Settings: ${options.duration} s per measurement after ${options.warmup} s warm-up, ${options.connections} connections (${options.dataConnections} for feed, timetable and users), timeclock ${options.timeclockPeople} people with ${options.timeclockConcurrency} in flight, ${options.batchRuns} batch runs per variant, server LOG_LEVEL=${options.logLevel}.`,
    ...(loads.length ? ['', ...loads.map((l) => `- ${l}`)] : []),
    '',
    renderTable(columns),
    ...(notes.length ? ['', 'Notes:', ...notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (options.write) {
    writeSection(DOC, section);
    log(`\nwritten to ${DOC}`);
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
}
