// The rows of the benchmark table: what each measures and the target the issues set for it.
export type Goal = (
  | { kind: 'share-of-bare'; min: number }
  | { kind: 'per-second'; min: number }
  | { kind: 'median-latency'; maxMs: number }
  /** The row measures the same as row `with` without `feature`: what the feature costs, 1 − with/without, is at most `max`. */
  | { kind: 'max-cost'; with: string; feature: string; max: number }
) & {
  /** The columns whose id starts with this are judged (the issue set the target for that database only). */
  readonly only?: 'sqlite' | 'postgres';
};

export interface Row {
  readonly id: string;
  /** The --only name that selects it (several rows can share one). */
  readonly group: string;
  readonly label: string;
  readonly goal?: Goal;
  /** A row of the same column that sends the same bytes with no work at all, to compare with. */
  readonly sameBody?: string;
  /** A row of the same column measuring a peer product doing the same job: the cell shows the ratio. */
  readonly peer?: string;
  /** What the rate counts when it is not requests (e.g. "changes"): shown with it, and never set against bare. */
  readonly unit?: string;
}

export const ROWS: readonly Row[] = [
  { id: 'bare', group: 'bare', label: 'bare `node:http`, small JSON (baseline)' },
  { id: 'config', group: 'config', label: 'GET /company/configuration, authenticated', goal: { kind: 'share-of-bare', min: 0.4 } },
  { id: 'token', group: 'token', label: 'POST /oauth/token, client_credentials', goal: { kind: 'per-second', min: 2000 }, peer: 'token-peer' },
  { id: 'token-peer', group: 'token', label: 'peer: panva\'s `oidc-provider`, in-memory adapter, POST /token, client_credentials (same load, just after)' },
  { id: 'idtoken', group: 'idtoken', label: 'POST /idToken, refresh token → ID token' },
  { id: 'bare-feed', group: 'feed', label: 'bare `node:http`, the feed\'s own body (~1.4 MB) from memory: the transport at that size' },
  { id: 'feed', group: 'feed', label: 'GET /feeds/timetable, one day (2,000 shifts)', goal: { kind: 'share-of-bare', min: 0.25 }, sameBody: 'bare-feed' },
  { id: 'feed-br', group: 'feed', label: 'GET /feeds/timetable, same day, `Accept-Encoding: gzip, deflate, br` (brotli, ~60 kB)', goal: { kind: 'share-of-bare', min: 0.25 } },
  { id: 'feed-304', group: 'feed', label: 'GET /feeds/timetable, same day revalidated (If-None-Match → 304)' },
  { id: 'timetable', group: 'timetable', label: 'GET /company/timetable, 31 days, first page (500)' },
  { id: 'users', group: 'users', label: 'GET /company/users, first page (500 of 1,000)' },
  { id: 'timeclock', group: 'timeclock', label: 'POST /timeclock/events, 500 people in order', goal: { kind: 'per-second', min: 2000 } },
  {
    id: 'timeclock-plain',
    group: 'timeclock',
    label: 'POST /timeclock/events, the same without the change-log insert (bench-only build beside the service, the load alternating between them)',
    goal: { kind: 'max-cost', with: 'timeclock', feature: 'the change log', max: 0.15 },
  },
  { id: 'changes', group: 'changes', label: 'GET /company/changes, paged at limit 1000 (changes per second, one follower)', unit: 'changes' },
  { id: 'webhooks', group: 'webhooks', label: 'webhook deliveries of one revenue batch\'s changes (5,000; --webhook-changes) to a local node:http receiver, one endpoint, in order', goal: { kind: 'per-second', min: 1000, only: 'sqlite' }, unit: 'deliveries' },
  { id: 'revenue-new', group: 'revenue', label: 'POST /company/revenue, 5,000 new items', goal: { kind: 'median-latency', maxMs: 250 } },
  { id: 'revenue-changed', group: 'revenue', label: 'POST /company/revenue, 5,000 changed items', goal: { kind: 'median-latency', maxMs: 250 } },
];

function targetText(goal: Goal): string {
  switch (goal.kind) {
    case 'share-of-bare':
      return `≥ ${Math.round(goal.min * 100)} % of bare`;
    case 'per-second':
      return `≥ ${goal.min.toLocaleString('en-US')}/s`;
    case 'median-latency':
      return `< ${goal.maxMs} ms (median)`;
    case 'max-cost':
      return `${goal.feature} costs ≤ ${Math.round(goal.max * 100)} %`;
  }
}

export function goalText(goal: Goal | undefined): string {
  if (!goal) return '—';
  return goal.only ? `${targetText(goal)} on ${goal.only === 'sqlite' ? 'SQLite' : 'PostgreSQL'}` : targetText(goal);
}

export function groupOf(rowId: string): string {
  return ROWS.find((row) => row.id === rowId)?.group ?? rowId;
}
