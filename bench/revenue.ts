// Time to accept a 5,000-item revenue batch, one batch at a time (the figure is latency, not
// throughput). Two variants: every item new (all inserts), and every item already stored with a
// changed amount (all updates, the path of a client re-sending corrected figures).
import { JsonClient } from './client.ts';
import { addDays } from '../src/platform/period.ts';
import { percentile, type Measurement } from './measurement.ts';
import type { Observer, Resources } from './resources.ts';

export const BATCH_SIZE = 5000;
const KINDS = ['realised', 'prognosis'] as const;

interface BatchResult {
  received: number;
  created: number;
  updated: number;
  unchanged: number;
}

export function revenueBatch(departmentIds: readonly string[], firstDate: string, category: string, amountOffset: number) {
  const items = [];
  for (let day = 0; items.length < BATCH_SIZE; day++) {
    const date = addDays(firstDate, day);
    for (const departmentId of departmentIds) {
      for (const kind of KINDS) {
        // Whole cents divided once, so every amount has at most 2 decimals (the contract's limit).
        if (items.length < BATCH_SIZE) items.push({ departmentId, date, kind, category, amount: (((items.length * 37) % 1_000_000) + amountOffset * 100) / 100 });
      }
    }
  }
  return { items };
}

export interface RevenueRun {
  url: string;
  idToken: string;
  departmentIds: readonly string[];
  /** Items are dated from here on, far from anything else in the database. */
  firstDate: string;
  runs: number;
  variant: 'new' | 'changed';
  /** Watches the timed batches (not the untimed first one). */
  observe?: Observer;
}

export async function measureRevenueBatch(run: RevenueRun): Promise<Measurement> {
  const client = new JsonClient(run.url, 1, { authorization: `Bearer ${run.idToken}` });
  const post = (category: string, offset: number) => client.send('POST', '/api/v1/company/revenue', revenueBatch(run.departmentIds, run.firstDate, category, offset));
  const times: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let resources: Resources | undefined;
  try {
    // Not timed: the first batch warms the code path; for "changed", it also stores what later runs change.
    await post(`${run.variant}-base`, 0);
    const stopObserving = await run.observe?.();
    for (let r = 1; r <= run.runs; r++) {
      const answer = run.variant === 'new' ? await post(`new-${r}`, 0) : await post('changed-base', r);
      const expected = run.variant === 'new' ? 'created' : 'updated';
      const body = answer.status === 200 ? (JSON.parse(answer.body) as BatchResult) : undefined;
      if (body && body[expected] === BATCH_SIZE) times.push(answer.ms);
      else {
        failures += 1;
        firstFailure ??= `${answer.status} ${answer.body.slice(0, 200)}`;
      }
    }
    resources = await stopObserving?.();
  } finally {
    client.close();
  }
  return {
    p99Ms: percentile(times, 99),
    medianMs: percentile(times, 50),
    failures,
    samples: times.length,
    ...(firstFailure ? { note: `first failure: ${firstFailure}` } : {}),
    ...(resources ? { resources } : {}),
  };
}
