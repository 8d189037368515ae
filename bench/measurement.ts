// What every scenario reports: throughput and tail latency, or, for the batch, per-request times.
import type { Observer, Resources } from './resources.ts';

export interface Measurement {
  /** Requests (or events) answered with a 2xx per second, over the measured window. */
  readonly perSecond?: number;
  readonly p99Ms: number;
  readonly medianMs?: number;
  /** Answers that were not 2xx, or failed connections and timeouts: any of them makes the figure suspect. */
  readonly failures: number;
  readonly samples: number;
  /** Seconds of the measured phase, for a rate (so that segments can be added up). */
  readonly seconds?: number;
  readonly note?: string;
  /** The service's (and PostgreSQL's) CPU, memory and event-loop delay over the measured phase. */
  readonly resources?: Resources;
}

/** Nearest-rank percentile of unsorted values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export interface TimedPhase {
  /** Wall-clock seconds of the measured phase. */
  readonly seconds: number;
  readonly resources?: Resources;
}

/**
 * Runs the warm-up (not recorded), then the measured phase, watched by `observe` when given (CPU,
 * memory and event loop over the measured phase only).
 */
export async function timedPhases(phase: (seconds: number, record: boolean) => Promise<void>, warmup: number, duration: number, observe?: Observer): Promise<TimedPhase> {
  if (warmup > 0) await phase(warmup, false);
  const stopObserving = await observe?.();
  const started = performance.now();
  await phase(duration, true);
  const seconds = (performance.now() - started) / 1000;
  return stopObserving ? { seconds, resources: await stopObserving() } : { seconds };
}
