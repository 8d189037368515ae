// wfs_http_request_duration_seconds: every answer's time by method, route pattern and status, as a
// Prometheus histogram. prom-client's Histogram validates and hashes the label object on every
// observation (about 3 % of a cached read's CPU in the bench's profile, docs/benchmarks.md); here an
// answer costs three Map look-ups on keys whose hashes are already known (the route pattern and the
// method are the same string objects on every request, the status a small integer) and a few
// additions, and the series are laid out as prom-client lays out a histogram's only when scraped —
// the same text, line for line.
import type { MetricValueWithName } from 'prom-client';

interface Series {
  method: string;
  route: string;
  status: number;
  /** Answers per bucket, not cumulative: `counts[i]` took at most `bounds[i]` and more than the one before. */
  counts: number[];
  sum: number;
  count: number;
}

type Labels = 'le' | 'method' | 'route' | 'status';

/** What prom-client's registry reads of a metric when it writes the text exposition. */
interface Exported {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: MetricValueWithName<Labels>[];
}

export class RequestDurations {
  readonly name = 'wfs_http_request_duration_seconds';
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: readonly number[];
  /** Series by route pattern, method and status: no key is built per answer. */
  readonly #series = new Map<string, Map<string, Map<number, Series>>>();

  constructor(help: string, bounds: readonly number[]) {
    this.help = help;
    this.#bounds = bounds;
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const series = this.#seriesOf(method, route, status);
    const bounds = this.#bounds;
    for (let bucket = 0; bucket < bounds.length; bucket++) {
      if (seconds <= bounds[bucket]!) {
        series.counts[bucket]! += 1;
        break;
      }
    }
    series.sum += seconds;
    series.count += 1;
  }

  #seriesOf(method: string, route: string, status: number): Series {
    let methods = this.#series.get(route);
    if (!methods) this.#series.set(route, (methods = new Map<string, Map<number, Series>>()));
    let statuses = methods.get(method);
    if (!statuses) methods.set(method, (statuses = new Map<number, Series>()));
    let series = statuses.get(status);
    if (!series) statuses.set(status, (series = { method, route, status, counts: this.#bounds.map(() => 0), sum: 0, count: 0 }));
    return series;
  }

  /** The series as prom-client's registry reads a metric: cumulative buckets up to +Inf, then _sum and _count. */
  get(): Exported {
    const values: MetricValueWithName<Labels>[] = [];
    for (const { method, route, status, counts, sum, count } of this.#allSeries()) {
      let below = 0;
      this.#bounds.forEach((le, i) => {
        below += counts[i] ?? 0;
        values.push({ labels: { le, method, route, status }, value: below, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', method, route, status }, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels: { method, route, status }, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels: { method, route, status }, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** In first-observed order of route, then method, then status. */
  *#allSeries(): Iterable<Series> {
    for (const methods of this.#series.values()) for (const statuses of methods.values()) yield* statuses.values();
  }

  reset(): void {
    this.#series.clear();
  }
}
