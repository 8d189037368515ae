// Fixed-duration HTTP load with wrk (Debian's package; one thread, keep-alive connections): a
// warm-up (JIT, connection pools, caches), then the measured window. Several targets (instances)
// are loaded at once, connections split between them, one wrk process each.
//
// Why wrk and not a Node load generator: the service shares 2 cores with the load generator, so
// the generator's own cost per response sets a ceiling. autocannon, measured here, turns every
// response body into a JavaScript string: on 56 kB bodies it stalled at ~800 responses/s while the
// server sat 75 % idle. wrk reads bodies without copying them.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Measurement } from './measurement.ts';
import type { Observer } from './resources.ts';

export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A `304 Not Modified` is the expected answer (conditional requests). */
  notModifiedIsAnswer?: boolean;
}

export interface LoadSettings {
  duration: number;
  warmup: number;
  connections: number;
  /** Watches the service's CPU, memory and event loop over the measured phase (not the warm-up). */
  observe?: Observer;
}

interface WrkResult {
  requests: number;
  seconds: number;
  /** Answers other than 2xx/3xx, and socket errors. */
  failures: number;
  p50Ms: number;
  p99Ms: number;
}

const run = promisify(execFile);

/** The request as a wrk Lua script: method, headers and body without shell quoting. */
function script(request: LoadRequest): string {
  const lines = [`wrk.method = ${JSON.stringify(request.method ?? 'GET')}`];
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  if (request.body !== undefined) lines.push(`wrk.body = ${JSON.stringify(request.body)}`);
  return `${lines.join('\n')}\n`;
}

function milliseconds(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match) return Number.NaN;
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[match[2] as 'us' | 'ms' | 's' | 'm'];
  return Number(match[1]) * factor;
}

export function parseWrk(output: string): WrkResult {
  const total = /(\d+) requests in ([\d.]+)(ms|s|m)/.exec(output);
  if (!total) throw new Error(`unexpected wrk output: ${output.slice(0, 300)}`);
  const count = (pattern: RegExp) => Number(pattern.exec(output)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requests: Number(total[1]),
    seconds: milliseconds(`${total[2]}${total[3]}`) / 1000,
    failures: count(/Non-2xx or 3xx responses: (\d+)/) + (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
    p50Ms: milliseconds(/\s50%\s+(\S+)/.exec(output)?.[1] ?? ''),
    p99Ms: milliseconds(/\s99%\s+(\S+)/.exec(output)?.[1] ?? ''),
  };
}

async function fire(baseUrl: string, scriptFile: string, connections: number, seconds: number): Promise<WrkResult> {
  // wrk takes whole seconds only.
  const args = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--timeout', '10s', '--latency', '-s', scriptFile, baseUrl];
  const { stdout } = await run('wrk', args, { maxBuffer: 1024 * 1024 });
  return parseWrk(stdout);
}

function summarise(results: WrkResult[]): Measurement {
  const seconds = Math.max(...results.map((r) => r.seconds));
  const ok = results.reduce((sum, r) => sum + r.requests - r.failures, 0);
  return {
    perSecond: ok / seconds,
    // Across instances the worst tail is the honest one (the histograms are not merged).
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    medianMs: Math.max(...results.map((r) => r.p50Ms)),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
    samples: ok,
  };
}

/**
 * wrk stops sending when its time is up, but the server still works through what it had
 * received; waiting until a trivial request is answered at once keeps that backlog out of the
 * measured window.
 */
async function settle(baseUrl: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    const started = performance.now();
    await (await fetch(`${baseUrl}/healthz`)).arrayBuffer();
    if (performance.now() - started < 5) return;
    await sleep(50);
  }
}

export async function measureLoad(baseUrls: readonly string[], request: LoadRequest, settings: LoadSettings): Promise<Measurement> {
  const perTarget = Math.max(1, Math.floor(settings.connections / baseUrls.length));
  const dir = mkdtempSync(join(tmpdir(), 'wfs-wrk-'));
  try {
    const scriptFile = join(dir, 'request.lua');
    writeFileSync(scriptFile, script(request));
    const urls = baseUrls.map((url) => `${url}${request.path}`);
    if (settings.warmup > 0) await Promise.all(urls.map((url) => fire(url, scriptFile, perTarget, settings.warmup)));
    await Promise.all(baseUrls.map(settle));
    const stopObserving = await settings.observe?.();
    const measurement = summarise(await Promise.all(urls.map((url) => fire(url, scriptFile, perTarget, settings.duration))));
    return stopObserving ? { ...measurement, resources: await stopObserving() } : measurement;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** wrk is a Debian package: installs it when missing and allowed (root), else says how. */
export async function requireWrk(log: (message: string) => void): Promise<void> {
  const present = () => run('wrk', ['--version']).then(() => true, (error: { code?: unknown }) => error.code !== 'ENOENT');
  if (await present()) return;
  if (process.getuid?.() !== 0) throw new Error('the benchmark loads with wrk: install it first (apt-get install wrk)');
  log('installing wrk (apt-get install wrk)');
  await run('apt-get', ['install', '-y', '-qq', 'wrk'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (!(await present())) throw new Error('wrk could not be installed');
}
