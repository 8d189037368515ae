// The rows of the benchmark table: what each measures and the target the issues set for it.
export type Goal = (
  | { kind: 'share-of-bare'; min: number }
  | { kind: 'per-second'; min: number }
  | { kind: 'median-latency'; maxMs: number }
  /** The rate is at least `min` times the peer product's (the row's `peer`) in the same column. */
  | { kind: 'ratio-to-peer'; min: number }
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
  /** Every target set for the row; each judges the columns its `only` names (all when unset). */
  readonly goals?: readonly Goal[];
  /** A row of the same column that sends the same bytes with no work at all, to compare with. */
  readonly sameBody?: string;
  /** A row of the same column measuring a peer product doing the same job: the cell shows the ratio. */
  readonly peer?: string;
  /** The peer doing exactly the row's job (signing ES256 JWTs, as the service must): the cell shows that ratio too. */
  readonly peerLikeForLike?: string;
  /** A row of the same column doing only the unavoidable part of the job (the token's signature): the cell shows its share. */
  readonly floor?: string;
  /** What the rate counts when it is not requests (e.g. "changes"): shown with it, and never set against bare. */
  readonly unit?: string;
}

export const ROWS: readonly Row[] = [
  { id: 'bare', group: 'bare', label: 'bare `node:http`, small JSON (baseline)' },
  { id: 'config', group: 'config', label: 'GET /company/configuration, authenticated', goals: [{ kind: 'share-of-bare', min: 0.6 }] },
  { id: 'token', group: 'token', label: 'POST /oauth/token, client_credentials', goals: [{ kind: 'ratio-to-peer', min: 1.5, only: 'sqlite' }, { kind: 'ratio-to-peer', min: 1, only: 'postgres' }], peer: 'token-peer', peerLikeForLike: 'token-peer-jwt', floor: 'token-floor' },
  { id: 'token-peer', group: 'token', label: 'peer: panva\'s `oidc-provider`, in-memory adapter, POST /token, client_credentials (same load, just after)' },
  { id: 'token-peer-jwt', group: 'token', label: 'peer again, issuing what the service issues: access tokens as ES256-signed JWTs (RFC 8707 default resource; same load, just after)' },
  { id: 'token-floor', group: 'token', label: 'floor: bare `node:http` reading the same form and signing one ES256 token per request on a worker thread, nothing checked or stored (same load, just after)' },
  { id: 'idtoken', group: 'idtoken', label: 'POST /idToken, refresh token → ID token' },
  { id: 'bare-feed', group: 'feed', label: 'bare `node:http`, the feed\'s own body (~1.4 MB) from memory: the transport at that size' },
  { id: 'feed', group: 'feed', label: 'GET /feeds/timetable, one day (2,000 shifts)', sameBody: 'bare-feed' },
  { id: 'feed-br', group: 'feed', label: 'GET /feeds/timetable, same day, `Accept-Encoding: gzip, deflate, br` (brotli, ~60 kB)', goals: [{ kind: 'share-of-bare', min: 0.4 }] },
  { id: 'feed-304', group: 'feed', label: 'GET /feeds/timetable, same day revalidated (If-None-Match → 304)' },
  { id: 'timetable', group: 'timetable', label: 'GET /company/timetable, 31 days, first page (500)' },
  { id: 'users', group: 'users', label: 'GET /company/users, first page (500 of 1,000)' },
  { id: 'timeclock', group: 'timeclock', label: 'POST /timeclock/events, 500 people in order', goals: [{ kind: 'per-second', min: 5000, only: 'sqlite' }, { kind: 'per-second', min: 3000, only: 'postgres' }] },
  {
    id: 'timeclock-plain',
    group: 'timeclock',
    label: 'POST /timeclock/events, the same without the change-log insert (bench-only build beside the service, the load alternating between them)',
    goals: [{ kind: 'max-cost', with: 'timeclock', feature: 'the change log', max: 0.15 }],
  },
  { id: 'changes', group: 'changes', label: 'GET /company/changes, paged at limit 1000 (changes per second, one follower)', unit: 'changes' },
  { id: 'webhooks', group: 'webhooks', label: 'webhook deliveries of one revenue batch\'s changes (5,000; --webhook-changes) to a local node:http receiver, one endpoint, in order', goals: [{ kind: 'per-second', min: 1000, only: 'sqlite' }], unit: 'deliveries' },
  { id: 'revenue-new', group: 'revenue', label: 'POST /company/revenue, 5,000 new items', goals: [{ kind: 'median-latency', maxMs: 100 }] },
  { id: 'revenue-changed', group: 'revenue', label: 'POST /company/revenue, 5,000 changed items', goals: [{ kind: 'median-latency', maxMs: 200 }] },
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
    case 'ratio-to-peer':
      return `≥ ×${goal.min} of the peer`;
  }
}

export function goalText(goals: readonly Goal[] | undefined): string {
  if (!goals?.length) return '—';
  return goals.map((goal) => (goal.only ? `${targetText(goal)} on ${goal.only === 'sqlite' ? 'SQLite' : 'PostgreSQL'}` : targetText(goal))).join('; ');
}

/** The targets that judge a column (by its id: `sqlite…` or `postgres…`). */
export function goalsFor(row: Row, columnId: string): Goal[] {
  return (row.goals ?? []).filter((goal) => !goal.only || columnId.startsWith(goal.only));
}

/** The row's feature-cost target, if it has one: its `with` row is measured beside it. */
export function costGoalOf(row: Row): Extract<Goal, { kind: 'max-cost' }> | undefined {
  return row.goals?.find((goal): goal is Extract<Goal, { kind: 'max-cost' }> => goal.kind === 'max-cost');
}

export function groupOf(rowId: string): string {
  return ROWS.find((row) => row.id === rowId)?.group ?? rowId;
}
