// What a row costs the machine, read from /proc over the measured phase: the CPU share of the service
// instances and of PostgreSQL (all its processes), so "CPU-bound" and "waiting on the database" are
// measured rather than guessed; the service's resident memory after the row; and the event-loop delay
// p99 the service itself reports on GET /metrics (prom-client resets that histogram at each scrape, so
// a scrape before and one after the phase bound it to the phase).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Resources {
  /** CPU time of the service instances over the phase, per second of wall time (1 = one core busy). */
  readonly serviceCpu: number;
  /** The same for every `postgres` process; absent when the column does not run on PostgreSQL. */
  readonly postgresCpu?: number;
  /** Resident memory of the service after the phase, summed over instances. */
  readonly rssMiB?: number;
  /** Event-loop delay p99 over the phase, the worst instance's. */
  readonly loopP99Ms?: number;
}

/** Starts watching at the beginning of a measured phase; the returned function ends it. */
export type Observer = () => Promise<() => Promise<Resources>>;

/** utime + stime (fields 14 and 15 of /proc/<pid>/stat), in clock ticks. The name may hold spaces and ")". */
export function parseCpuTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unexpected /proc stat line: ${stat.slice(0, 120)}`);
  return utime + stime;
}

/** VmRSS of /proc/<pid>/status, in KiB. */
export function parseRssKiB(status: string): number | undefined {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) : undefined;
}

/** prom-client's nodejs_eventloop_lag_p99_seconds, in milliseconds. */
export function parseLoopP99Ms(metrics: string): number | undefined {
  const match = /^nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? ([\d.e+-]+)$/m.exec(metrics);
  return match ? Number(match[1]) * 1000 : undefined;
}

/** CPU ticks spent between two readings, per second of wall time, in cores. */
export function cpuShare(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>, seconds: number, ticksPerSecond: number): number {
  let ticks = 0;
  // A process born during the phase spent all its ticks in it; one that ended took its ticks along.
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
  return ticks / ticksPerSecond / seconds;
}

export const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

const readOr = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process has exited
  }
};

/** utime + stime of each live process, in clock ticks. */
export function cpuTicks(pids: readonly number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    const stat = readOr(`/proc/${pid}/stat`);
    if (stat !== undefined) ticks.set(pid, parseCpuTicks(stat));
  }
  return ticks;
}

/**
 * Whether a PostgreSQL process, by its title (`postgres: 15/main: <user> <database> <host(port)> <state>`
 * for a session), works for `database`: its sessions and autovacuum workers, and the cluster's shared
 * processes (WAL writer, checkpointer, background writer), but not other databases' sessions — on a
 * shared machine those belong to other people's tests.
 */
export function servesDatabase(title: string, database: string): boolean {
  const words = title.trim().split(/\s+/);
  const client = words.findIndex((word) => /^(?:\S+\(\d+\)|\[local\])$/.test(word));
  if (client > 0) return words[client - 1] === database;
  const worker = words.indexOf('worker');
  if (words[worker - 1] === 'autovacuum' && words[worker + 1] !== undefined) return words[worker + 1] === database;
  return true;
}

function postgresPids(database: string): number[] {
  return readdirSync('/proc').filter((name) => {
    if (!/^\d+$/.test(name) || readOr(`/proc/${name}/comm`)?.trim() !== 'postgres') return false;
    return servesDatabase((readOr(`/proc/${name}/cmdline`) ?? '').replaceAll('\0', ' '), database);
  }).map(Number);
}

async function loopP99Ms(url: string, token: string): Promise<number | undefined> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return response.ok ? parseLoopP99Ms(text) : undefined;
}

export interface Watched {
  readonly pids: readonly number[];
  readonly urls: readonly string[];
  /** The METRICS_TOKEN the instances run with. */
  readonly metricsToken: string;
  /** Count PostgreSQL's processes too: those working for this database (servesDatabase). */
  readonly postgresDatabase?: string;
}

export function observer(watched: Watched): Observer {
  return async () => {
    await Promise.all(watched.urls.map((url) => loopP99Ms(url, watched.metricsToken)));
    const started = performance.now();
    const service = cpuTicks(watched.pids);
    const database = watched.postgresDatabase;
    const postgres = database !== undefined ? cpuTicks(postgresPids(database)) : undefined;
    return async () => {
      const seconds = (performance.now() - started) / 1000;
      const serviceCpu = cpuShare(service, cpuTicks(watched.pids), seconds, TICKS_PER_SECOND);
      const postgresCpu = postgres && database !== undefined ? cpuShare(postgres, cpuTicks(postgresPids(database)), seconds, TICKS_PER_SECOND) : undefined;
      const rss = watched.pids.map((pid) => parseRssKiB(readOr(`/proc/${pid}/status`) ?? ''));
      const loops = (await Promise.all(watched.urls.map((url) => loopP99Ms(url, watched.metricsToken)))).filter((v) => v !== undefined);
      return {
        serviceCpu,
        ...(postgresCpu !== undefined ? { postgresCpu } : {}),
        ...(rss.every((v) => v !== undefined) ? { rssMiB: rss.reduce((sum, v) => sum + v, 0) / 1024 } : {}),
        ...(loops.length ? { loopP99Ms: Math.max(...loops) } : {}),
      };
    };
  };
}
