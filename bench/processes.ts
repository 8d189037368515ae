// The processes the benchmark measures. The service runs as real `node src/app/server.ts` instances
// (test/support/processes.ts starts them); the baseline is a bare node:http server, also in a process
// of its own, so neither shares an event loop with the load generator (this process).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { freePorts, startCluster, type Cluster } from '../test/support/processes.ts';

export interface Target {
  /** Addresses to load; several when the run spreads over instances. */
  readonly urls: readonly string[];
  stop(): Promise<void>;
}

/** The bare baseline; with `bodyFile` it also answers `/body` with that file's bytes. */
export async function startBareServer(bodyFile?: string): Promise<Target> {
  const env = bodyFile ? { ...process.env, BARE_BODY_FILE: bodyFile } : process.env;
  const child: ChildProcess = spawn(process.execPath, [new URL('./bare-server.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  const port = /^listening (\d+)$/.exec(line)?.[1];
  if (!port) throw new Error(`bare server said "${line}"`);
  return {
    urls: [`http://127.0.0.1:${port}`],
    stop: async () => {
      process.off('exit', stopOnExit);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface ServiceSettings {
  databaseUrl: string;
  /** The public address all instances share (the token issuer derives from it). */
  baseUrl: string;
  logLevel: string;
  /** NODE_OPTIONS of the instances (profiling flags); empty for none. */
  nodeOptions: string;
}

/** Instances of the service on one database, limits raised far above anything the run reaches. */
export async function startService(settings: ServiceSettings, instances: number): Promise<Target> {
  const cluster: Cluster = await startCluster(await freePorts(instances), {
    DATABASE_URL: settings.databaseUrl,
    BASE_URL: settings.baseUrl,
    RATE_LIMIT_TOKEN_PER_MINUTE: '1000000000',
    RATE_LIMIT_API_PER_MINUTE: '1000000000',
    LOG_LEVEL: settings.logLevel,
    // The production default, not the tests' fast poll.
    REVOCATION_REFRESH_MS: '1000',
    ...(settings.nodeOptions ? { NODE_OPTIONS: settings.nodeOptions } : {}),
  });
  return { urls: cluster.instances.map((i) => i.url), stop: () => cluster.stop() };
}
