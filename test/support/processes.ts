// Starts the real server (`node src/app/server.ts`) as separate operating-system processes, the way
// production runs several stateless instances behind one load balancer: every instance gets the same
// BASE_URL (so the same issuer) and the same database, and its own port. Runs the `wfs` program in
// the same clean environment: in the test's own process (its streams captured, no process started,
// no ~900 modules loaded per command), or as a process of its own where that is what a test is about.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, onFreePort } from './server.ts';
import { TEST_PASSWORD_HASH_COST } from './database.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = fileURLToPath(new URL('../../src/app/server.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const OUTPUT_KEPT = 1024 * 1024;

export interface Instance {
  /** Where this instance listens, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  readonly child: ChildProcess;
  /** The last MiB of its standard output and error, for failure messages. */
  output(): string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** SIGTERM, as an orchestrator sends it; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface InstanceOptions {
  /** Configuration variables (contract: addresses and configuration); DATABASE_URL is required. */
  env: Record<string, string>;
  port?: number;
}

/**
 * A server process loads ~1,500 modules before it listens: a second or two of CPU, but on this
 * 2-core machine under a whole suite (four test processes, their servers and browsers) 10–35 s went
 * by, and `npm test` on a fresh clone has no compile cache yet. Only a bound on a hang, not a claim.
 */
const READY_TIMEOUT_MS = 90_000;

// Children must not outlive a crashed test run and keep ports and database connections.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function childEnvironment(env: Record<string, string>): Record<string, string> {
  // A clean environment: nothing from the developer's shell (a stray DATABASE_URL) or from the test
  // runner (NODE_TEST_CONTEXT) leaks into the server. NODE_COMPILE_CACHE (set by `npm test`) passes:
  // every child loads the same ~1,500 modules, and reusing their compiled code saves a third of it.
  const inherited: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_COMPILE_CACHE']) {
    const value = process.env[name];
    if (value !== undefined) inherited[name] = value;
  }
  return {
    ...inherited,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    REVOCATION_REFRESH_MS: '200',
    PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
    ...env,
  };
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output()}`);
    }
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`server at ${url} was not ready within ${timeoutMs} ms:\n${output()}`);
}

/**
 * A server process on `options.port`, or on a free port: tried again on another when the one chosen
 * was taken before the process bound it (server.ts: onFreePort). A given port is the caller's to
 * choose again (a cluster's load balancer knows its instances' ports).
 */
export async function startInstance(options: InstanceOptions): Promise<Instance> {
  if (!options.env.DATABASE_URL) throw new Error('startInstance needs env.DATABASE_URL');
  return options.port === undefined ? onFreePort((port) => startInstanceOn(port, options.env)) : startInstanceOn(options.port, options.env);
}

async function startInstanceOn(port: number, env: Record<string, string>): Promise<Instance> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [SERVER], { cwd: ROOT, env: childEnvironment({ BASE_URL: url, ...env, PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let captured = '';
  const keep = (chunk: Buffer) => {
    captured = (captured + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  const instance: Instance = {
    url,
    child,
    output: () => captured,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (instance.alive()) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 12_000);
      try {
        return await exited;
      } finally {
        clearTimeout(killer);
      }
    },
  };
  try {
    await waitUntilReady(url, child, () => captured, READY_TIMEOUT_MS);
  } catch (error) {
    await instance.stop();
    // A port taken meanwhile: the process says so as it exits (listen EADDRINUSE).
    throw captured.includes('EADDRINUSE') ? Object.assign(error as Error, { code: 'EADDRINUSE' }) : error;
  }
  return instance;
}

export interface Cluster {
  readonly instances: Instance[];
  /** The public address every instance shares (BASE_URL): that of the load balancer. */
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/** Ports for a cluster, chosen before it starts so BASE_URL can be known in advance. */
export async function freePorts(count: number): Promise<number[]> {
  return Promise.all(Array.from({ length: count }, () => freePort()));
}

/**
 * One instance per port, all on one database. BASE_URL (and so the issuer) is the same for all of
 * them, as if they stood behind one load balancer; by default the first instance's address.
 */
export async function startCluster(ports: number[], env: Record<string, string>): Promise<Cluster> {
  const baseUrl = env.BASE_URL ?? `http://127.0.0.1:${ports[0]}`;
  const started = await Promise.allSettled(ports.map((port) => startInstance({ port, env: { ...env, BASE_URL: baseUrl } })));
  const instances = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
  };
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await stop();
    throw failure.reason;
  }
  return { instances, baseUrl, stop };
}

export interface WfsRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Answers the program's prompt: one line on its standard input, which is then closed. */
export type Answer = (line: string) => void;

/**
 * Runs `wfs <args>` in this process, on a terminal of its own (`runWfs` of `src/cli/main.ts`), in a
 * clean environment plus `env`: what it prints and the exit status it ends with, as a process of its
 * own would. `onStderr` sees standard error (all of it so far) as it arrives and may answer.
 */
export async function runWfs(args: string[], env: Record<string, string> = {}, onStderr?: (stderr: string, answer: Answer) => void): Promise<WfsRun> {
  const { runWfs: run } = await import('../../src/cli/main.ts');
  const stdin = new PassThrough();
  if (!onStderr) stdin.end();
  const answer: Answer = (line) => stdin.end(`${line}\n`);
  const result = { code: null as number | null, stdout: '', stderr: '' };
  const stdout = capture((text) => (result.stdout += text));
  const stderr = capture((text) => {
    result.stderr += text;
    onStderr?.(result.stderr, answer);
  });
  try {
    result.code = await run(args, { stdout, stderr, stdin, env: childEnvironment(env) });
  } catch (error) {
    // What an uncaught error does to the process: its stack on standard error, exit status 1.
    result.stderr += `${error instanceof Error ? error.stack : String(error)}\n`;
    result.code = 1;
  }
  return result;
}

function capture(take: (text: string) => void): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      take(chunk.toString());
      done();
    },
  });
}

/** `wfs <args>` as its own process, as an operator runs it: for its exit status and streams as a process. */
export async function runWfsProcess(args: string[], env: Record<string, string> = {}, onStderr?: (stderr: string, answer: Answer) => void): Promise<WfsRun> {
  return runToEnd([CLI, ...args], env, onStderr);
}

/** `node src/app/server.ts` run to its end: for a server that must refuse to start. */
export async function runServerToEnd(env: Record<string, string>): Promise<WfsRun> {
  return runToEnd([SERVER], env);
}

async function runToEnd(argv: string[], env: Record<string, string>, onStderr?: (stderr: string, answer: Answer) => void): Promise<WfsRun> {
  const child = spawn(process.execPath, argv, { cwd: ROOT, env: childEnvironment(env), stdio: [onStderr ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  const answer: Answer = (line) => child.stdin?.end(`${line}\n`);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    onStderr?.(stderr, answer);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}

/** The JSON object on the last line of standard output (what `--json` promises). */
export function lastJson(run: WfsRun): Record<string, unknown> {
  const last = run.stdout.trimEnd().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`no JSON on the last line (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

/** `wfs <args> --json` with its JSON result, whatever the exit code. */
export async function runWfsJson(args: string[], env: Record<string, string>): Promise<WfsRun & { json: Record<string, unknown> }> {
  const run = await runWfs([...args, '--json'], env);
  return { ...run, json: lastJson(run) };
}
