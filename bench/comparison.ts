// What a feature costs, measured on a shared, noisy machine: the service as it runs and a build
// without the feature run side by side on one database, and the same timeclock load alternates
// between them in segments of half the measuring time each, without–with–with–without (ABBA), so a
// drift in the machine's load over the row falls on both alike. Each variant's figure adds up its
// segments; only the measured service is busy in a segment, the other sits idle.
import { measureTimeclock, type TimeclockRun } from './timeclock.ts';
import type { Measurement } from './measurement.ts';
import type { Observer, Resources } from './resources.ts';

export interface Variant {
  readonly urls: readonly string[];
  readonly observe?: Observer;
}

type Load = Omit<TimeclockRun, 'urls' | 'observe' | 'warmup' | 'duration'>;

const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);

/** Resources over several segments: CPU shares weighted by time, the last RSS, the worst loop p99. */
export function combineResources(parts: readonly { resources?: Resources; seconds: number }[]): Resources | undefined {
  const watched = parts.filter((p): p is { resources: Resources; seconds: number } => p.resources !== undefined);
  if (watched.length === 0) return undefined;
  const seconds = sum(watched.map((p) => p.seconds));
  const share = (pick: (r: Resources) => number | undefined) => {
    const values = watched.map((p) => pick(p.resources));
    return values.every((v) => v !== undefined) ? sum(values.map((v, i) => v * watched[i]!.seconds)) / seconds : undefined;
  };
  const postgresCpu = share((r) => r.postgresCpu);
  const rssMiB = watched.at(-1)?.resources.rssMiB;
  const loops = watched.flatMap((p) => (p.resources.loopP99Ms === undefined ? [] : [p.resources.loopP99Ms]));
  return {
    serviceCpu: share((r) => r.serviceCpu) ?? 0,
    ...(postgresCpu !== undefined ? { postgresCpu } : {}),
    ...(rssMiB !== undefined ? { rssMiB } : {}),
    ...(loops.length ? { loopP99Ms: Math.max(...loops) } : {}),
  };
}

/** A segment's rate and, when watched, its service and PostgreSQL CPU per request: one slow segment shows which. */
function segmentFigures(m: Measurement): string {
  const rate = `${Math.round(m.perSecond ?? 0)}/s`;
  const r = m.resources;
  if (!r || !m.perSecond) return rate;
  const micros = (cores: number) => Math.round((cores / m.perSecond!) * 1e6);
  return `${rate} ${micros(r.serviceCpu)}${r.postgresCpu !== undefined ? ` + ${micros(r.postgresCpu)}` : ''} µs CPU`;
}

/** Segments of one variant as one measurement: the rate over their summed time, the worst p99. */
export function combineSegments(parts: readonly Measurement[]): Measurement {
  const timed = parts.map((p) => ({ ...p, seconds: p.seconds ?? 0 }));
  const seconds = sum(timed.map((p) => p.seconds));
  const samples = sum(parts.map((p) => p.samples));
  const resources = combineResources(timed);
  const note = parts.find((p) => p.note)?.note;
  return {
    perSecond: samples / seconds,
    p99Ms: Math.max(...parts.map((p) => p.p99Ms)),
    medianMs: sum(parts.map((p) => (p.medianMs ?? 0) * p.samples)) / samples,
    failures: sum(parts.map((p) => p.failures)),
    samples,
    seconds,
    note: `${parts.length} segments alternating with the other build (${parts.map(segmentFigures).join(', ')}); p99 the worst segment's, median the mean of theirs${note ? `; ${note}` : ''}`,
    ...(resources ? { resources } : {}),
  };
}

/**
 * `settle` runs after both warm-ups, before the first segment: on PostgreSQL it analyses the tables
 * the warm-ups filled, so both builds plan their prepared statements on the same statistics. Without
 * it the build warmed up first prepared them while timeclock_events was still analysed empty, and
 * kept a generic plan that scans the whole table for each person's latest event (docs/benchmarks.md).
 */
export async function compareTimeclock(withIt: Variant, without: Variant, load: Load, warmup: number, duration: number, settle: () => Promise<void>): Promise<{ with: Measurement; without: Measurement }> {
  // The warm-up of each build: JIT, pools, caches (not recorded).
  if (warmup > 0) for (const variant of [without, withIt]) await measureTimeclock({ ...load, urls: variant.urls, warmup: 0, duration: warmup });
  await settle();
  const segments = new Map<Variant, Measurement[]>([[withIt, []], [without, []]]);
  for (const variant of [without, withIt, withIt, without]) {
    segments.get(variant)!.push(await measureTimeclock({ ...load, urls: variant.urls, warmup: 0, duration: duration / 2, ...(variant.observe ? { observe: variant.observe } : {}) }));
  }
  return { with: combineSegments(segments.get(withIt)!), without: combineSegments(segments.get(without)!) };
}
