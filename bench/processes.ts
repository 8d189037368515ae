// The processes the benchmark measures. The service runs as real `node src/app/server.ts` instances
// (test/support/processes.ts starts them); the baseline is a bare node:http server, also in a process
// of its own, so neither shares an event loop with the load generator (this process).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { freePorts, startCluster, type Cluster } from '../test/support/processes.ts';

export interface Target {
  /** Addresses to load; several when the run spreads over instances. */
  readonly urls: readonly string[];
  /** The processes serving them (their CPU and memory are read from /proc). */
  readonly pids: readonly number[];
  /** The PostgreSQL database they use (its backends' CPU is watched with theirs); absent on SQLite. */
  readonly postgresDatabase?: string;
  stop(): Promise<void>;
}

/** A helper server in a process of its own that prints "listening <port>" when ready. */
async function startScript(script: string, env: NodeJS.ProcessEnv): Promise<Target> {
  const child: ChildProcess = spawn(process.execPath, [new URL(script, import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  const port = /^listening (\d+)$/.exec(line)?.[1];
  if (!port) throw new Error(`${script} said "${line}"`);
  return {
    urls: [`http://127.0.0.1:${port}`],
    pids: child.pid === undefined ? [] : [child.pid],
    stop: async () => {
      process.off('exit', stopOnExit);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The bare baseline; with `bodyFile` it also answers `/body` with that file's bytes. */
export function startBareServer(bodyFile?: string): Promise<Target> {
  return startScript('./bare-server.ts', bodyFile ? { ...process.env, BARE_BODY_FILE: bodyFile } : process.env);
}

/** oidc-provider with one client_credentials client (the peer of the token row). */
/** The token row's peer, oidc-provider; `tokenFormat` 'jwt' has it sign ES256 JWTs as the service does. */
export async function startPeerServer(client: { id: string; secret: string }, tokenFormat: 'opaque' | 'jwt'): Promise<Target> {
  const [port] = await freePorts(1);
  return startScript('./peer-server.ts', { ...process.env, PORT: String(port), PEER_CLIENT_ID: client.id, PEER_CLIENT_SECRET: client.secret, PEER_TOKEN_FORMAT: tokenFormat });
}

/** The token row's floor: form body, claims, one ES256 signature on a worker thread, nothing else. */
export async function startTokenFloorServer(): Promise<Target> {
  const [port] = await freePorts(1);
  return startScript('./token-floor-server.ts', { ...process.env, PORT: String(port) });
}

export interface ServiceSettings {
  databaseUrl: string;
  /** The public address all instances share (the token issuer derives from it). */
  baseUrl: string;
  logLevel: string;
  /** NODE_OPTIONS of the instances (profiling flags); empty for none. */
  nodeOptions: string;
  /** Bench-only: the timeclock write path without its change-log insert (bench/without-change-log/). */
  withoutChangeLog?: boolean;
  /**
   * Another checkout of the repository to run instead of this one (bench/read-cpu.ts compares builds):
   * its own `test/support/processes.ts` starts its own `src/app/server.ts`.
   */
  root?: string;
}

const WITHOUT_CHANGE_LOG = `--import=${new URL('./without-change-log/register.ts', import.meta.url).href}`;

/** The node flags `npm start` gives the service (package.json): the bench measures the service as it ships. */
export function startFlags(root = new URL('..', import.meta.url).pathname): string[] {
  const { scripts } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/** The /metrics bearer the instances run with: the service is measured as a monitored install runs. */
export const BENCH_METRICS_TOKEN = 'bench-metrics-token-0123456789';

/** Instances of the service on one database, limits raised far above anything the run reaches. */
export async function startService(settings: ServiceSettings, instances: number): Promise<Target> {
  const nodeOptions = [...startFlags(settings.root), settings.nodeOptions, settings.withoutChangeLog ? WITHOUT_CHANGE_LOG : ''].filter((o) => o !== '').join(' ');
  const start: typeof startCluster = settings.root ? ((await import(resolve(settings.root, 'test/support/processes.ts'))) as { startCluster: typeof startCluster }).startCluster : startCluster;
  const cluster: Cluster = await start(await freePorts(instances), {
    DATABASE_URL: settings.databaseUrl,
    BASE_URL: settings.baseUrl,
    RATE_LIMIT_TOKEN_PER_MINUTE: '1000000000',
    RATE_LIMIT_API_PER_MINUTE: '1000000000',
    LOG_LEVEL: settings.logLevel,
    // The production default, not the tests' fast poll.
    REVOCATION_REFRESH_MS: '1000',
    METRICS_TOKEN: BENCH_METRICS_TOKEN,
    // The webhooks row delivers to a receiver on 127.0.0.1 over http.
    WEBHOOK_ALLOW_INSECURE: '1',
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  });
  const postgres = /^postgres(?:ql)?:/.test(settings.databaseUrl) ? { postgresDatabase: decodeURIComponent(new URL(settings.databaseUrl).pathname.slice(1)) } : {};
  return { urls: cluster.instances.map((i) => i.url), pids: cluster.instances.flatMap((i) => (i.child.pid === undefined ? [] : [i.child.pid])), ...postgres, stop: () => cluster.stop() };
}
