// Where a run happened, for the header of the results: machine, versions, commit, load.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return (await client.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? '?';
  } catch {
    return 'unreachable';
  } finally {
    await client.end().catch(() => {});
  }
}

export function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** The 1-minute load average: on 2 cores, anything well above 0 means the figures are shared. */
export function currentLoad(): number {
  return loadavg()[0] ?? 0;
}

export async function describeMachine(postgresUrl: string, loadAtStart: number): Promise<string> {
  const cpu = cpus();
  return `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL ${await postgresVersion(postgresUrl)}; load average ${loadAtStart.toFixed(1)} at the start.`;
}
