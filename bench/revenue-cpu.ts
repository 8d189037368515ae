// CPU per 5,000-item revenue batch, without HTTP (issue 16; docs/benchmarks.md, "Revenue batches").
// On a shared machine wall time says more about the neighbours than about the code, so this counts
// the CPU one batch costs: the service's (`process.cpuUsage` around `ingestBatch`) and, on PostgreSQL,
// its database backends' (/proc of this database's sessions only, so other people's databases on
// the shared cluster do not count). Both also as time spent waiting for a core (the run queue, from
// /proc/<pid>/schedstat: the service's main thread, the backends): on a loaded machine that is most of
// the difference between the wall time measured and the one a quiet machine would give.
// A fresh database, one company with 4 departments,
// the bench's own bodies (`revenueBatch`): "new" a fresh category per batch (5,000 inserts), "changed"
// new amounts on the same keys (5,000 updates); one untimed batch, then `runs` timed ones.
// Compare two builds by running this in each, alternating, back to back.
//   npx node bench/revenue-cpu.ts [--db sqlite|postgres] [--runs 10]
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import pg from 'pg';
import { createDatabase, type Db } from '../src/platform/db/database.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { createCompany, createOrganisation } from '../src/iam/provisioning.ts';
import { ingestBatch } from '../src/inbound/batch.ts';
import { revenueRules } from '../src/inbound/revenue.ts';
import { newId } from '../src/platform/ids.ts';
import { freshBenchDatabase } from './databases.ts';
import { BATCH_SIZE, revenueBatch } from './revenue.ts';
import { readFileSync } from 'node:fs';
import { percentile } from './measurement.ts';
import type { Dialect } from './options.ts';

const FIRST_DATE = '2031-01-01';

export interface BatchCpu {
  variant: 'new' | 'changed';
  batches: number;
  /** Medians per batch, in milliseconds. */
  wallMs: number;
  serviceCpuMs: number;
  /** 0 on SQLite, which runs in the service's process. */
  backendsCpuMs: number;
  /** Time the service's main thread, and the backends, were ready to run but waited for a core. */
  serviceWaitMs: number;
  backendsWaitMs: number;
}

/** Milliseconds a thread has run, and waited in the run queue, from /proc/<pid>/schedstat; zeros once it is gone. */
function schedstat(pid: number | 'thread-self'): { runMs: number; waitMs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { runMs: (run ?? 0) / 1e6, waitMs: (wait ?? 0) / 1e6 };
  } catch {
    return { runMs: 0, waitMs: 0 };
  }
}

/** Run and run-queue milliseconds of this database's backends, summed (none on SQLite). */
async function backendTimes(monitor: pg.Client | undefined): Promise<{ runMs: number; waitMs: number }> {
  const total = { runMs: 0, waitMs: 0 };
  if (!monitor) return total;
  const { rows } = await monitor.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  for (const { runMs, waitMs } of rows.map((row) => schedstat(row.pid))) {
    total.runMs += runMs;
    total.waitMs += waitMs;
  }
  return total;
}

async function benchCompany(db: Db): Promise<{ companyId: string; departmentIds: string[] }> {
  const { organisationId } = await createOrganisation(db, { name: 'Bench Org' });
  const { companyId } = await createCompany(db, { organisationId, name: 'Bench', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' });
  const departmentIds = ['Kitchen', 'Bar', 'Floor', 'Terrace'].map(() => newId('dep'));
  await db.insertInto('departments').values(departmentIds.map((id, i) => ({ id, company_id: companyId, ref: id, name: `D${i}`, code: `D${i}`, updated_at: Date.now() }))).execute();
  return { companyId, departmentIds };
}

/** Measures both variants on a fresh database of `dialect`, dropped afterwards. */
export async function measureBatchCpu(dialect: Dialect, postgresAdminUrl: string, runs: number): Promise<BatchCpu[]> {
  const database = await freshBenchDatabase(dialect, postgresAdminUrl);
  const db = createDatabase(database.url);
  let monitor: pg.Client | undefined;
  try {
    await migrateToLatest(db);
    const { companyId, departmentIds } = await benchCompany(db);
    if (dialect === 'postgres') {
      monitor = new pg.Client({ connectionString: database.url });
      await monitor.connect();
    }
    const batch = async (category: string, offset: number, expected: 'created' | 'updated') => {
      // As the route gets it: parsed from JSON text.
      const { items } = JSON.parse(JSON.stringify(revenueBatch(departmentIds, FIRST_DATE, category, offset))) as { items: unknown[] };
      const backendsBefore = await backendTimes(monitor);
      const serviceBefore = schedstat('thread-self');
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const outcome = await ingestBatch(db, companyId, revenueRules, items);
      const wallMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      const serviceWaitMs = schedstat('thread-self').waitMs - serviceBefore.waitMs;
      const backendsAfter = await backendTimes(monitor);
      if (outcome[expected] !== BATCH_SIZE) throw new Error(`expected ${BATCH_SIZE} ${expected}, got ${JSON.stringify(outcome)}`);
      return { wallMs, serviceCpuMs: (cpu.user + cpu.system) / 1000, backendsMs: backendsAfter.runMs - backendsBefore.runMs, serviceWaitMs, backendsWaitMs: backendsAfter.waitMs - backendsBefore.waitMs };
    };
    const results: BatchCpu[] = [];
    for (const variant of ['new', 'changed'] as const) {
      await batch(`${variant}-base`, 0, 'created');
      const samples = [];
      for (let run = 1; run <= runs; run++) samples.push(variant === 'new' ? await batch(`new-${run}`, 0, 'created') : await batch('changed-base', run, 'updated'));
      results.push({
        variant,
        batches: samples.length,
        wallMs: percentile(samples.map((s) => s.wallMs), 50),
        serviceCpuMs: percentile(samples.map((s) => s.serviceCpuMs), 50),
        backendsCpuMs: percentile(samples.map((s) => s.backendsMs), 50),
        serviceWaitMs: percentile(samples.map((s) => s.serviceWaitMs), 50),
        backendsWaitMs: percentile(samples.map((s) => s.backendsWaitMs), 50),
      });
    }
    return results;
  } finally {
    await monitor?.end();
    await db.destroy();
    await database.drop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { db: { type: 'string', default: 'postgres' }, runs: { type: 'string', default: '10' } } });
  const dialect = values.db === 'sqlite' ? 'sqlite' : 'postgres';
  const results = await measureBatchCpu(dialect, process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test', Number(values.runs));
  console.log(`${dialect}, load average ${loadavg()[0]?.toFixed(1)}: medians per 5,000-item batch`);
  console.log('| variant | batches | wall ms | service ms CPU | backends ms CPU | service / backends ms waiting for a core |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results) console.log(`| ${r.variant} | ${r.batches} | ${r.wallMs.toFixed(0)} | ${r.serviceCpuMs.toFixed(0)} | ${r.backendsCpuMs.toFixed(0)} | ${r.serviceWaitMs.toFixed(0)} / ${r.backendsWaitMs.toFixed(0)} |`);
}

if (import.meta.main) await main();
