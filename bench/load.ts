// Fixed-duration HTTP load with autocannon: a warm-up (JIT, connection pools, caches), then the
// measured window. Several targets (instances) are loaded at once, connections split between them.
import autocannon from 'autocannon';
import type { Measurement } from './measurement.ts';

export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
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

function summarise(results: autocannon.Result[]): Measurement {
  const seconds = Math.max(...results.map((r) => r.duration));
  const ok = results.reduce((sum, r) => sum + r['2xx'], 0);
  const failures = results.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
  return {
    perSecond: ok / seconds,
    // Across instances the worst tail is the honest one (the histograms are not merged).
    p99Ms: Math.max(...results.map((r) => r.latency.p99)),
    medianMs: Math.max(...results.map((r) => r.latency.p50)),
    failures,
    samples: ok,
  };
}

export async function measureLoad(baseUrls: readonly string[], request: LoadRequest, settings: LoadSettings): Promise<Measurement> {
  const perTarget = Math.max(1, Math.floor(settings.connections / baseUrls.length));
  if (settings.warmup > 0) await Promise.all(baseUrls.map((url) => fire(url, request, perTarget, settings.warmup)));
  return summarise(await Promise.all(baseUrls.map((url) => fire(url, request, perTarget, settings.duration))));
}
