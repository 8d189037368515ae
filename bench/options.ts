// Benchmark options from argv (`npm run bench -- --only feed --duration 5`) with BENCH_* environment
// fallbacks (BENCH_ONLY=feed), so CI and a shell loop can set them alike.
import { parseArgs } from 'node:util';

export type Dialect = 'sqlite' | 'postgres';

export interface BenchOptions {
  /** Scenario ids to run (every scenario when empty). */
  readonly only: readonly string[];
  readonly databases: readonly Dialect[];
  /** Seconds each wrk or timeclock measurement lasts, after the warm-up. */
  readonly duration: number;
  readonly warmup: number;
  readonly connections: number;
  /** Connections for the rows that answer hundreds of kilobytes (feed, timetable, users). */
  readonly dataConnections: number;
  /** Days of shifts loaded for the company (2,000 a day). */
  readonly days: number;
  readonly employees: number;
  readonly shiftsPerDay: number;
  readonly timeclockPeople: number;
  readonly timeclockConcurrency: number;
  readonly batchRuns: number;
  /** Changes delivered in the webhook row (one revenue batch: at most 5,000). */
  readonly webhookChanges: number;
  /** Run the two-instance PostgreSQL column (authenticated read and timeclock). */
  readonly twoInstances: boolean;
  readonly logLevel: string;
  /** NODE_OPTIONS for the service processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile them. */
  readonly serverNodeOptions: string;
  readonly postgresUrl: string;
  /** Write the table into docs/benchmarks.md (off: print only). */
  readonly write: boolean;
}

/** Defaults of a full run, and those --short replaces. */
const DEFAULTS = { duration: '5', warmup: '1', days: '46', 'batch-runs': '10', 'webhook-changes': '5000' };
const SHORT: typeof DEFAULTS = { duration: '1', warmup: '0', days: '9', 'batch-runs': '3', 'webhook-changes': '1000' };

const HELP = `npm run bench -- [options]
  --only ids          comma-separated rows (config,token,idtoken,feed,timetable,users,timeclock,revenue,changes,webhooks);
                      the bare baseline is always measured (the other rows are compared with it);
                      token also measures the peer, oidc-provider, just after (ratio in the token cell)
  --db list           sqlite,postgres (default both)
  --duration s        seconds per measurement (default 5)
  --warmup s          warm-up seconds before each measurement (default 1)
  --connections n     wrk connections (default 32)
  --data-connections n  connections for feed, timetable and users (default 8)
  --days n            days of shifts to load from today − 8 (default 46; at least 9 to reach today)
  --employees n       employees in the company (default 1000)
  --shifts-per-day n  shifts per day (default 2000)
  --people n          timeclock people (default 500)
  --concurrency n     timeclock people in flight at once (default 64)
  --batch-runs n      revenue batch runs per variant (default 10)
  --webhook-changes n changes delivered in the webhooks row, 1 to 5000 (default 5000)
  --no-two-instances  skip the two-instance PostgreSQL column
  --log-level l       server LOG_LEVEL (default warn)
  --server-node-options=s  NODE_OPTIONS for the service processes (with "=", as the value starts
                      with a dash), e.g. --server-node-options="--cpu-prof --cpu-prof-dir=/tmp/prof":
                      a CPU profile of each instance under the bench's load (it costs throughput)
  --no-write          print the table without writing docs/benchmarks.md
  --short             a smoke run (under 2 minutes for every row on both databases): the defaults
                      become 1 s per measurement, no warm-up, 9 days, 3 batch runs, 1,000 webhook
                      changes, no two-instance column, no writing; a number given still wins.
                      Shows the bench works, measures nothing worth keeping.
Each row against the service reports service (and PostgreSQL) CPU share over the measured phase,
the service's RSS after it and its event-loop p99 (from /proc and GET /metrics): take figures on a
quiet machine only.
Every option also reads BENCH_<NAME> (e.g. BENCH_DURATION=3, BENCH_DB=sqlite).`;

function list(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
  return value;
}

export function readOptions(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      db: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'data-connections': { type: 'string' },
      days: { type: 'string' },
      employees: { type: 'string' },
      'shifts-per-day': { type: 'string' },
      people: { type: 'string' },
      concurrency: { type: 'string' },
      'batch-runs': { type: 'string' },
      'webhook-changes': { type: 'string' },
      'no-two-instances': { type: 'boolean' },
      'log-level': { type: 'string' },
      'server-node-options': { type: 'string' },
      'no-write': { type: 'boolean' },
      short: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const pick = (name: keyof typeof values, fallback: string): string => {
    const fromArgv = values[name];
    if (typeof fromArgv === 'string') return fromArgv;
    return env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`] ?? fallback;
  };
  const flag = (name: 'no-two-instances' | 'no-write' | 'short'): boolean => values[name] === true || env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`] === '1';
  const short = flag('short');
  const defaults = short ? SHORT : DEFAULTS;
  const databases = list(pick('db', 'sqlite,postgres'));
  for (const d of databases) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`--db takes sqlite and/or postgres, got "${d}"`);
  return Object.freeze({
    only: list(pick('only', '')),
    databases: databases as Dialect[],
    duration: positive('duration', pick('duration', defaults.duration)),
    warmup: Number(pick('warmup', defaults.warmup)),
    connections: Math.round(positive('connections', pick('connections', '32'))),
    dataConnections: Math.round(positive('data-connections', pick('data-connections', '8'))),
    days: Math.round(positive('days', pick('days', defaults.days))),
    employees: Math.round(positive('employees', pick('employees', '1000'))),
    shiftsPerDay: Math.round(positive('shifts-per-day', pick('shifts-per-day', '2000'))),
    timeclockPeople: Math.round(positive('people', pick('people', '500'))),
    timeclockConcurrency: Math.round(positive('concurrency', pick('concurrency', '64'))),
    batchRuns: Math.round(positive('batch-runs', pick('batch-runs', defaults['batch-runs']))),
    webhookChanges: Math.min(5000, Math.round(positive('webhook-changes', pick('webhook-changes', defaults['webhook-changes'])))),
    twoInstances: !short && !flag('no-two-instances'),
    logLevel: pick('log-level', 'warn'),
    serverNodeOptions: pick('server-node-options', ''),
    postgresUrl: env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    write: !short && !flag('no-write'),
  });
}
