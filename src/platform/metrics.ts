// The figures `npm run bench` measures, for operators who cannot run it on their servers: GET /metrics
// (Prometheus text, behind METRICS_TOKEN; contract: addresses and configuration). One registry per context, so two servers in one
// process (tests) never share series. docs/operations.md lists every series and the alerts built on them.
//
// Features add their own series through `counter`, `gauge` and `histogram` below, named `wfs_<feature>_…`
// (the change log's webhook backlog, say: `metrics.gauge('wfs_webhook_backlog', '…', () => countPending(db))`).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from './db/database.ts';
import { pgPoolOf } from './db/database.ts';
import { observeCommits } from './db/durability.ts';
import { RequestDurations } from './request-durations.ts';

/** Seconds; from a cached read (well under a millisecond) to a slow batch. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const GROUP_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const GRANT_TYPES = ['authorization_code', 'client_credentials', 'refresh_token', 'id_token'] as const;

/** How a token was issued; `id_token` is the idToken endpoint's exchange of a refresh token. */
export type IssuedBy = (typeof GRANT_TYPES)[number];

export interface MetricsOptions {
  db: Db;
  /**
   * Whether anyone can read the figures (METRICS_TOKEN is set). When not, the per-request histogram and
   * the runtime collectors (event-loop monitor, GC observer) stay off, so an unmonitored install pays
   * nothing for them; the feature counters still count (an increment costs a few nanoseconds).
   */
  exposed: boolean;
}

export class Metrics {
  readonly registry = new Registry();
  readonly exposed: boolean;
  readonly #requests: RequestDurations;
  readonly #tokens: Counter<'grant_type'>;
  readonly #timeclockEvents: Counter;

  constructor({ db, exposed }: MetricsOptions) {
    this.exposed = exposed;
    const registers = [this.registry];
    this.#requests = new RequestDurations(
      'Time from the request\'s arrival to its answer, by method, route pattern (never the raw URL; "unmatched" for 404s without a route) and status. Its _count is the number of answers per status.',
      LATENCY_BUCKETS,
    );
    // The registry reads any object shaped as a metric (get, name, help, type); its type names only its own classes.
    this.registry.registerMetric(this.#requests as unknown as Histogram);
    this.#tokens = new Counter({ name: 'wfs_tokens_issued_total', help: 'ID tokens issued, by how (grant_type; id_token for the idToken endpoint).', labelNames: ['grant_type'], registers });
    for (const grantType of GRANT_TYPES) this.#tokens.labels(grantType).inc(0);
    this.#timeclockEvents = new Counter({ name: 'wfs_timeclock_events_total', help: 'Timeclock events answered 200: stored durably, or the replay of an already stored eventId.', registers });

    const commits = new Histogram({ name: 'wfs_db_commit_duration_seconds', help: 'Time a grouped or durable write took to commit (durable: including the log sync), by kind.', labelNames: ['kind'], buckets: LATENCY_BUCKETS, registers });
    const groups = new Histogram({ name: 'wfs_db_commit_group_size', help: 'Writes carried by one commit (group commit; 1 where writes are not grouped), by kind.', labelNames: ['kind'], buckets: GROUP_BUCKETS, registers });
    observeCommits(db, {
      commit: (kind, seconds, writes) => {
        commits.labels(kind).observe(seconds);
        groups.labels(kind).observe(writes);
      },
    });

    const pool = pgPoolOf(db);
    if (pool) {
      new Gauge({
        name: 'wfs_db_pool_connections',
        help: 'PostgreSQL connections of this instance by state: busy (checked out), idle, and waiting (requests queued for a connection).',
        labelNames: ['state'],
        registers,
        collect() {
          this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
        },
      });
      new Gauge({ name: 'wfs_db_pool_max', help: 'The pool\'s size (DB_POOL_SIZE).', registers, collect() { this.set(pool.options.max ?? 10); } });
    }
    // Process CPU and memory, GC, and the event-loop delay (nodejs_eventloop_lag_p99_seconds is the p99
    // since the previous scrape).
    if (exposed) collectDefaultMetrics({ register: this.registry });
  }

  /** One answered request; `route` is the route's pattern. */
  request(method: string, route: string, status: number, seconds: number): void {
    this.#requests.observe(method, route, status, seconds);
  }

  tokenIssued(grantType: IssuedBy): void {
    this.#tokens.labels(grantType).inc();
  }

  timeclockEventAccepted(): void {
    this.#timeclockEvents.inc();
  }

  /** A feature's counter, registered with the others. */
  counter<L extends string = never>(name: string, help: string, labelNames: L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A feature's gauge, read at each scrape (a backlog counted in the database, say). */
  gauge(name: string, help: string, read: () => number | Promise<number>): void {
    new Gauge({ name, help, registers: [this.registry], async collect() { this.set(await read()); } });
  }

  /** A feature's histogram (delivery latency, say); `buckets` default to the request latency buckets. */
  histogram<L extends string = never>(name: string, help: string, labelNames: L[] = [], buckets: number[] = LATENCY_BUCKETS): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /** The Prometheus text exposition of every series. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }
}
