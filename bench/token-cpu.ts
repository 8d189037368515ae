// CPU per `client_credentials` token (POST /api/v1/iam/oauth/token, the bench's token row) for builds
// compared side by side (issue 16; docs/benchmarks.md, "The token row"). As bench/read-cpu.ts does for
// the read rows, every build runs at once, each loaded by its own wrk (1 thread, 32 connections), so
// each round finds them under the same neighbours; but each build gets a database of its own (a token
// writes: two services on one SQLite file would wait on each other's write lock) with the bench's
// tenant. Per round and build: the service's CPU per token (utime + stime of the process, /proc), the
// part of it spent by the main thread (the event loop: /proc/<pid>/task/<pid>/stat) and, on
// PostgreSQL, by the PostgreSQL processes serving its database; and the voluntary context switches
// of all the service's threads per token (each a thread put to sleep and woken again: on this VM a
// wake-up costs more than many a small function).
//   npx node bench/token-cpu.ts --build DIR [--build DIR ...] [--db sqlite|postgres] [--rounds 6] [--seconds 3]
// A build is a checkout of this repository (see bench/read-cpu.ts).
import { parseArgs } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Dialect } from './options.ts';
import { freshBenchDatabase, type BenchDatabase } from './databases.ts';
import { BENCH_BASE_URL, closeContext, openBenchContext, provisionBenchTenant } from './tenant.ts';
import { measureLoad, requireWrk, type LoadRequest } from './load.ts';
import { observer, parseCpuTicks, TICKS_PER_SECOND } from './resources.ts';
import { BENCH_METRICS_TOKEN, startService, type Target } from './processes.ts';
import { SIDE_BY_SIDE_OPTIONS, median } from './read-cpu.ts';

export interface TokenCpuOptions {
  builds: readonly string[];
  dialect: Dialect;
  rounds: number;
  seconds: number;
  postgresUrl: string;
}

export interface TokenCpuResult {
  build: string;
  /** Per round: µs of CPU per token — the service, its main thread, PostgreSQL (NaN on SQLite) —, voluntary context switches per token and tokens per second. */
  service: number[];
  mainThread: number[];
  postgres: number[];
  switches: number[];
  perSecond: number[];
}

interface Build {
  target: Target;
  request: LoadRequest;
}

/** utime + stime of the process's main thread (the event loop), in clock ticks. */
function mainThreadTicks(pid: number): number {
  return parseCpuTicks(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
}

/** Voluntary context switches of the process's live threads, summed. */
function voluntarySwitches(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => {
    const match = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
    return sum + Number(match?.[1] ?? 0);
  }, 0);
}

async function startBuild(root: string, database: BenchDatabase): Promise<Build> {
  const ctx = await openBenchContext(database.url);
  const tenant = await provisionBenchTenant(ctx);
  await closeContext(ctx);
  const target = await startService({ databaseUrl: database.url, baseUrl: BENCH_BASE_URL, logLevel: 'warn', nodeOptions: '', root }, 1);
  // The bench's token row, byte for byte (bench/columns.ts).
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret });
  return { target, request: { method: 'POST', path: '/api/v1/iam/oauth/token', headers: { 'content-type': 'application/json' }, body } };
}

async function measureRound({ target, request }: Build, seconds: number): Promise<{ service: number; mainThread: number; postgres: number; switches: number; perSecond: number }> {
  const pid = target.pids[0]!;
  const watch = observer({ pids: target.pids, urls: target.urls, metricsToken: BENCH_METRICS_TOKEN, ...(target.postgresDatabase ? { postgresDatabase: target.postgresDatabase } : {}) });
  let mainShare = Number.NaN;
  let switchesPerSecond = Number.NaN;
  const observe = async () => {
    const stop = await watch();
    const before = { ticks: mainThreadTicks(pid), switches: voluntarySwitches(pid) };
    const started = performance.now();
    return async () => {
      const seconds = (performance.now() - started) / 1000;
      mainShare = (mainThreadTicks(pid) - before.ticks) / TICKS_PER_SECOND / seconds;
      switchesPerSecond = (voluntarySwitches(pid) - before.switches) / seconds;
      return stop();
    };
  };
  const measurement = await measureLoad(target.urls, request, { duration: seconds, warmup: 0, connections: 32, observe });
  if (measurement.failures > 0) throw new Error(`${measurement.failures} answers failed`);
  const perSecond = measurement.perSecond ?? Number.NaN;
  const micros = (share: number | undefined) => ((share ?? Number.NaN) * 1e6) / perSecond;
  const { resources } = measurement;
  return { service: micros(resources?.serviceCpu), mainThread: micros(mainShare), postgres: micros(resources?.postgresCpu), switches: switchesPerSecond / perSecond, perSecond };
}

export async function measureTokenCpu(options: TokenCpuOptions): Promise<TokenCpuResult[]> {
  const databases: BenchDatabase[] = [];
  const builds: Build[] = [];
  try {
    for (const root of options.builds) {
      const database = await freshBenchDatabase(options.dialect, options.postgresUrl);
      databases.push(database);
      builds.push(await startBuild(resolve(root), database));
    }
    // Warm every build (the kept client, the signing thread, the JIT) before the first round.
    for (const { target, request } of builds) await measureLoad(target.urls, request, { duration: 1, warmup: 0, connections: 32 });
    const results: TokenCpuResult[] = options.builds.map((root) => ({ build: basename(resolve(root)), service: [], mainThread: [], postgres: [], switches: [], perSecond: [] }));
    for (let round = 0; round < options.rounds; round++) {
      const measured = await Promise.all(builds.map((build) => measureRound(build, options.seconds)));
      measured.forEach((m, i) => {
        const result = results[i]!;
        result.service.push(m.service);
        result.mainThread.push(m.mainThread);
        result.postgres.push(m.postgres);
        result.switches.push(m.switches);
        result.perSecond.push(m.perSecond);
      });
    }
    return results;
  } finally {
    for (const { target } of builds) await target.stop();
    for (const database of databases) await database.drop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: SIDE_BY_SIDE_OPTIONS });
  await requireWrk((message) => console.error(message));
  const results = await measureTokenCpu({
    builds: values.build,
    dialect: values.db === 'postgres' ? 'postgres' : 'sqlite',
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    postgresUrl: process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  });
  const line = (values: readonly number[], digits = 0) => `median ${median(values).toFixed(digits + 1)} (${values.map((v) => v.toFixed(digits)).join(' ')})`;
  for (const { build, service, mainThread, postgres, switches, perSecond } of results) {
    console.log(`${build.padEnd(20)} µs per token: service ${line(service)} · main thread ${line(mainThread)}${postgres.some(Number.isFinite) ? ` · PostgreSQL ${line(postgres)}` : ''} · voluntary switches per token ${line(switches, 2)} · tokens/s ${perSecond.map((r) => r.toFixed(0)).join(' ')}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
