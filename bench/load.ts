// Fixed-duration HTTP load with autocannon: a warm-up (JIT, connection pools, caches), then the
// measured window. Several targets (instances) are loaded at once, connections split between them.
import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Measurement } from './measurement.ts';

export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A `304 Not Modified` counts as answered (conditional requests). */
  notModifiedIsAnswer?: boolean;
}

export interface LoadSettings {
  duration: number;
  warmup: number;
  connections: number;
}

function fire(baseUrl: string, request: LoadRequest, connections: number, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${baseUrl}${request.path}`,
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(request.body !== undefined ? { body: request.body } : {}),
    connections,
    duration,
    timeout: 10,
  });
}

function summarise(results: autocannon.Result[], request: LoadRequest): Measurement {
  const seconds = Math.max(...results.map((r) => r.duration));
  const notModified = (r: autocannon.Result) => (request.notModifiedIsAnswer ? (r.statusCodeStats?.['304']?.count ?? 0) : 0);
  const ok = results.reduce((sum, r) => sum + r['2xx'] + notModified(r), 0);
  const failures = results.reduce((sum, r) => sum + r.non2xx - notModified(r) + r.errors, 0);
  return {
    perSecond: ok / seconds,
    // Across instances the worst tail is the honest one (the histograms are not merged).
    p99Ms: Math.max(...results.map((r) => r.latency.p99)),
    medianMs: Math.max(...results.map((r) => r.latency.p50)),
    failures,
    samples: ok,
  };
}

/**
 * autocannon stops sending when its time is up, but the server still works through what it had
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
  if (settings.warmup > 0) await Promise.all(baseUrls.map((url) => fire(url, request, perTarget, settings.warmup)));
  await Promise.all(baseUrls.map(settle));
  return summarise(await Promise.all(baseUrls.map((url) => fire(url, request, perTarget, settings.duration))), request);
}
