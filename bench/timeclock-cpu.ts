// What the change log costs a timeclock event in CPU, without HTTP (issue 14; docs/benchmarks.md).
// On a shared machine throughput says more about the neighbours than about the code, so this counts
// CPU per event, A/B back to back: each round starts a fresh process of the service's timeclock write
// path (`recordEvent`, with the context a server creates: pool, LISTEN connection, notifier) once with
// the change log and once with the bench-only build without it (./without-change-log/, put in place
// with `--import`, exactly as the bench's row does), in the order without–with–with–without. Each
// process records a warm-up, then the measured events, `concurrency` people in flight over `people`,
// and reports its own CPU (`process.cpuUsage`), its database backends' CPU (/proc of the backends of
// this database only, so other databases' work on the shared cluster does not count), and every
// statement it sent (node-postgres' Client#query, by prepared statement name or first words).
//   npx node bench/timeclock-cpu.ts [--rounds 3] [--events 4000] [--warmup 1000] [--concurrency 64] [--people 500] [--profile DIR]
// (--profile: each process writes a .cpuprofile into DIR; its figures are then not comparable.)
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/platform/config.ts';
import { closeContext, createContext } from '../src/app/bootstrap.ts';
import { recordEvent } from '../src/timeclock/record.ts';
import { PUBLISH_DELAY_MS } from '../src/changes/notifier.ts';
import { freshBenchDatabase } from './databases.ts';
import { BENCH_BASE_URL, openBenchContext, provisionBenchTenant } from './tenant.ts';
import { staffDocument } from './dataset.ts';
import { importCompanyData } from '../src/company/import.ts';
import { cpuTicks, TICKS_PER_SECOND } from './resources.ts';

const REGISTER = new URL('./without-change-log/register.ts', import.meta.url).href;
const TYPES = ['clock_in', 'break_start', 'break_end', 'clock_out'] as const;

export interface Load {
  databaseUrl: string;
  organisationId: string;
  userIds: string[];
  /** Events per person before the measured ones, and measured. */
  warmupRounds: number;
  rounds: number;
  concurrency: number;
  /** Instant of the first event of this process's people; each round is a minute later. */
  firstEventAt: number;
}

export interface VariantResult {
  withChangeLog: boolean;
  events: number;
  seconds: number;
  serviceCpuMicros: number;
  backendCpuMicros: number;
  /** Statements sent during the measured events, by prepared statement name or first words. */
  statements: Record<string, number>;
}

/** Every statement any node-postgres client of this process sends, counted by name (or first words). */
function countStatements(): Record<string, number> {
  const counts: Record<string, number> = {};
  const query = Object.getOwnPropertyDescriptor(pg.Client.prototype, 'query')!.value as (this: pg.Client, ...args: unknown[]) => unknown;
  pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { name?: string; text?: string };
    const key = typeof first === 'string' ? first : (first.name ?? first.text ?? '?');
    const short = key.replace(/\s+/g, ' ').slice(0, 40);
    counts[short] = (counts[short] ?? 0) + 1;
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  return counts;
}

async function backendTicks(monitor: pg.Client): Promise<Map<number, number>> {
  const { rows } = await monitor.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  return cpuTicks(rows.map((row) => row.pid));
}

/** In the child: records the load's events through the service's own write path and measures them. */
export async function recordLoad(load: Load): Promise<VariantResult> {
  const statements = countStatements();
  const ctx = await createContext(loadConfig({ DATABASE_URL: load.databaseUrl, BASE_URL: BENCH_BASE_URL, LOG_LEVEL: 'warn' }));
  const monitor = new pg.Client({ connectionString: load.databaseUrl });
  await monitor.connect();
  try {
    const concurrency = Math.min(load.concurrency, load.userIds.length);
    const send = async (from: number, to: number) => {
      const worker = async (w: number) => {
        for (let round = from; round < to; round++) {
          for (let i = w; i < load.userIds.length; i += concurrency) {
            const input = { eventId: randomUUID(), userId: load.userIds[i]!, type: TYPES[round % TYPES.length]!, occurredAt: new Date(load.firstEventAt + round * 60_000 + i).toISOString(), source: 'terminal' as const };
            await recordEvent(ctx.db, load.organisationId, input);
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
    };
    await send(0, load.warmupRounds);
    for (const key of Object.keys(statements)) delete statements[key];
    const backendsBefore = await backendTicks(monitor);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await send(load.warmupRounds, load.warmupRounds + load.rounds);
    const seconds = (performance.now() - started) / 1000;
    // The last round's announcement goes out PUBLISH_DELAY_MS after its commit: counted in, as part of its cost.
    await new Promise((resolve) => setTimeout(resolve, 2 * PUBLISH_DELAY_MS));
    const cpu = process.cpuUsage(cpuBefore);
    const measured = { ...statements };
    const backendsAfter = await backendTicks(monitor);
    let backendTicksSpent = 0;
    for (const [pid, ticks] of backendsAfter) backendTicksSpent += ticks - (backendsBefore.get(pid) ?? 0);
    delete measured['select pid from pg_stat_activity where d'];
    const events = load.rounds * load.userIds.length;
    return {
      withChangeLog: !process.execArgv.some((arg) => arg.includes('without-change-log')),
      events,
      seconds,
      serviceCpuMicros: (cpu.user + cpu.system) / events,
      backendCpuMicros: (backendTicksSpent / TICKS_PER_SECOND) * 1e6 / events,
      statements: measured,
    };
  } finally {
    await monitor.end();
    await closeContext(ctx);
  }
}

/** A fresh PostgreSQL database with the bench's tenant and `people` employees, their timeclocks active. */
export async function timeclockDatabase(postgresUrl: string, people: number) {
  const database = await freshBenchDatabase('postgres', postgresUrl);
  const ctx = await openBenchContext(database.url);
  try {
    const tenant = await provisionBenchTenant(ctx);
    await importCompanyData(ctx.db, tenant.companyId, staffDocument({ employees: people, shiftsPerDay: 0 }));
    const rows = await ctx.db.selectFrom('employees').select('id').where('company_id', '=', tenant.companyId).orderBy('id').execute();
    return { database, organisationId: tenant.organisationId, userIds: rows.map((row) => row.id) };
  } finally {
    await closeContext(ctx);
  }
}

/** Runs `recordLoad` in a fresh process of this file, with or without the change log. */
export function runVariant(load: Load, withChangeLog: boolean, nodeOptions: readonly string[] = []): Promise<VariantResult> {
  const args = [...nodeOptions, ...(withChangeLog ? [] : [`--import=${REGISTER}`]), new URL(import.meta.url).pathname, '--child', JSON.stringify(load)];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as VariantResult) : reject(new Error(`timeclock-cpu child exited with ${code}`))));
  });
}

const per = (count: number, events: number) => (count / events).toFixed(3);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { child: { type: 'string' }, rounds: { type: 'string' }, events: { type: 'string' }, warmup: { type: 'string' }, concurrency: { type: 'string' }, people: { type: 'string' }, profile: { type: 'string' } } });
  if (values.child !== undefined) {
    process.stdout.write(JSON.stringify(await recordLoad(JSON.parse(values.child) as Load)));
    return;
  }
  const people = Number(values.people ?? 500);
  const setup = await timeclockDatabase(process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test', people);
  const warmupRounds = Math.max(1, Math.round(Number(values.warmup ?? 1000) / people));
  const rounds = Math.max(1, Math.round(Number(values.events ?? 4000) / people));
  // Each process continues every person's timeline where the previous one stopped.
  let firstEventAt = Date.now() - 30 * 86_400_000;
  try {
    console.log('| build | events | events/s | service µs CPU/event | backends µs CPU/event | statements/event |');
    console.log('|---|---|---|---|---|---|');
    for (let round = 0; round < Number(values.rounds ?? 3); round++) {
      for (const withChangeLog of [false, true, true, false]) {
        const result = await runVariant({ databaseUrl: setup.database.url, organisationId: setup.organisationId, userIds: setup.userIds, warmupRounds, rounds, concurrency: Number(values.concurrency ?? 64), firstEventAt }, withChangeLog, values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : []);
        firstEventAt += (warmupRounds + rounds) * 60_000;
        const statements = Object.entries(result.statements).map(([name, count]) => `${name} ${per(count, result.events)}`).join(', ');
        console.log(`| ${withChangeLog ? 'with' : 'without'} | ${result.events} | ${Math.round(result.events / result.seconds)} | ${result.serviceCpuMicros.toFixed(0)} | ${result.backendCpuMicros.toFixed(0)} | ${statements} |`);
      }
    }
  } finally {
    await setup.database.drop();
  }
}

if (import.meta.main) await main();
