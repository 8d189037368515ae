// Service CPU per answer of the cached read rows, for builds compared side by side (issue 16;
// docs/benchmarks.md, "Read paths"). On this shared machine a build's CPU per answer moves with its
// throughput (fewer answers per event-loop turn carry the same fixed costs), and the neighbours move
// the throughput: builds measured one after the other cannot be told apart below ~15 %. Here every
// build is a `node src/app/server.ts` of its own checkout on one database (the bench's company:
// 1,000 employees, 2,000 shifts a day, 9 days), and by default all of them are loaded at once, each
// by its own wrk (1 thread, 32 connections for the configuration, 8 for the brotli feed), so each
// round finds them under the same neighbours. Each answer's CPU is the process's utime + stime over
// the round (/proc) divided by the answers.
//   npx node bench/read-cpu.ts --build DIR [--build DIR ...] [--db sqlite|postgres] [--rows config,feed-br]
//                              [--rounds 6] [--seconds 3] [--one-at-a-time]
// A build is a checkout of this repository: `.` for this one, or another commit's tree, e.g.
//   mkdir /tmp/before && git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
import { parseArgs } from 'node:util';
import { basename, resolve } from 'node:path';
import type { Dialect } from './options.ts';
import { freshBenchDatabase } from './databases.ts';
import { BENCH_BASE_URL, BENCH_TIMEZONE, closeContext, openBenchContext, provisionBenchTenant } from './tenant.ts';
import { loadCompany } from './company.ts';
import { measureLoad, requireWrk, type LoadRequest } from './load.ts';
import { observer } from './resources.ts';
import { BENCH_METRICS_TOKEN, startService, type Target } from './processes.ts';
import { today } from '../src/platform/period.ts';

export interface ReadCpuOptions {
  builds: readonly string[];
  dialect: Dialect;
  rows: readonly string[];
  rounds: number;
  seconds: number;
  /** Load one build at a time instead of all at once. */
  oneAtATime: boolean;
  postgresUrl: string;
  employees: number;
  shiftsPerDay: number;
}

export interface ReadCpuResult {
  row: string;
  build: string;
  /** Per round: µs of service CPU per answer, and answers per second. */
  microsPerAnswer: number[];
  perSecond: number[];
}

const ROWS: Record<string, (idToken: string) => { request: LoadRequest; connections: number }> = {
  config: (idToken) => ({ request: { path: '/api/v1/company/configuration', headers: { authorization: `Bearer ${idToken}` } }, connections: 32 }),
  'feed-br': (idToken) => ({
    request: { path: `/api/v1/feeds/timetable?date=${today(BENCH_TIMEZONE)}`, headers: { authorization: `Bearer ${idToken}`, 'accept-encoding': 'gzip, deflate, br' } },
    connections: 8,
  }),
};

async function measureRound(target: Target, request: LoadRequest, connections: number, seconds: number): Promise<{ micros: number; perSecond: number }> {
  const observe = observer({ pids: target.pids, urls: target.urls, metricsToken: BENCH_METRICS_TOKEN });
  const measurement = await measureLoad(target.urls, request, { duration: seconds, warmup: 0, connections, observe });
  if (measurement.failures > 0) throw new Error(`${measurement.failures} answers failed`);
  // The CPU share is over the observed phase (wrk's seconds and two /metrics scrapes), alike for every build.
  const cpuShare = measurement.resources?.serviceCpu ?? Number.NaN;
  const perSecond = measurement.perSecond ?? Number.NaN;
  return { micros: (cpuShare * 1e6) / perSecond, perSecond };
}

export async function measureReadCpu(options: ReadCpuOptions): Promise<ReadCpuResult[]> {
  const unknown = options.rows.filter((row) => !ROWS[row]);
  if (unknown.length > 0) throw new Error(`unknown rows: ${unknown.join(', ')} (${Object.keys(ROWS).join(', ')})`);
  const database = await freshBenchDatabase(options.dialect, options.postgresUrl);
  const targets: Target[] = [];
  try {
    const ctx = await openBenchContext(database.url);
    const tenant = await provisionBenchTenant(ctx);
    await loadCompany(ctx, tenant.companyId, { employees: options.employees, shiftsPerDay: options.shiftsPerDay, days: 9 });
    await closeContext(ctx);
    for (const build of options.builds) targets.push(await startService({ databaseUrl: database.url, baseUrl: BENCH_BASE_URL, logLevel: 'warn', nodeOptions: '', root: resolve(build) }, 1));
    const results = options.rows.flatMap((row) => options.builds.map((build) => ({ row, build: basename(resolve(build)), microsPerAnswer: [] as number[], perSecond: [] as number[] })));
    for (const row of options.rows) {
      const { request, connections } = ROWS[row]!(tenant.idToken);
      // Warm every build (the cache entries, the brotli copy, the JIT) before the first round.
      for (const target of targets) await measureLoad(target.urls, request, { duration: 1, warmup: 0, connections });
      for (let round = 0; round < options.rounds; round++) {
        const rowResults = results.filter((result) => result.row === row);
        const record = (i: number, { micros, perSecond }: { micros: number; perSecond: number }) => {
          rowResults[i]!.microsPerAnswer.push(micros);
          rowResults[i]!.perSecond.push(perSecond);
        };
        if (options.oneAtATime) {
          for (const [i, target] of targets.entries()) record(i, await measureRound(target, request, connections, options.seconds));
        } else {
          (await Promise.all(targets.map((target) => measureRound(target, request, connections, options.seconds)))).forEach((measured, i) => record(i, measured));
        }
      }
    }
    return results;
  } finally {
    for (const target of targets) await target.stop();
    await database.drop();
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The options of every side-by-side comparison of builds (this script and bench/token-cpu.ts). */
export const SIDE_BY_SIDE_OPTIONS = {
  build: { type: 'string' as const, multiple: true as const, default: ['.'] },
  db: { type: 'string' as const, default: 'sqlite' },
  rounds: { type: 'string' as const, default: '6' },
  seconds: { type: 'string' as const, default: '3' },
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { ...SIDE_BY_SIDE_OPTIONS, rows: { type: 'string', default: 'config,feed-br' }, 'one-at-a-time': { type: 'boolean', default: false } },
  });
  await requireWrk((message) => console.error(message));
  const results = await measureReadCpu({
    builds: values.build,
    dialect: values.db === 'postgres' ? 'postgres' : 'sqlite',
    rows: values.rows.split(','),
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    oneAtATime: values['one-at-a-time'],
    postgresUrl: process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    employees: 1000,
    shiftsPerDay: 2000,
  });
  for (const { row, build, microsPerAnswer, perSecond } of results) {
    console.log(`${row.padEnd(8)} ${build.padEnd(20)} µs per answer: median ${median(microsPerAnswer).toFixed(1)}, rounds ${microsPerAnswer.map((m) => m.toFixed(1)).join(' ')} · answers/s ${perSecond.map((r) => r.toFixed(0)).join(' ')}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
