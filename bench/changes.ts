// Delta reads: one follower pages through the company's change log from the oldest change kept,
// at limit 1000, one page after the other as an integrator's sync job does, for the measured time
// (starting over from the beginning when it reaches the end). Reported as changes per second.
import { JsonClient } from './client.ts';
import { percentile, timedPhases, type Measurement } from './measurement.ts';
import type { Observer } from './resources.ts';

export interface ChangeReadRun {
  url: string;
  idToken: string;
  warmup: number;
  duration: number;
  observe?: Observer;
}

const PAGE = '/api/v1/company/changes?limit=1000';

export async function measureChangeReads(run: ChangeReadRun): Promise<Measurement> {
  const client = new JsonClient(run.url, 1, { authorization: `Bearer ${run.idToken}` });
  const latencies: number[] = [];
  let changes = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const phase = async (seconds: number, record: boolean): Promise<void> => {
    const endAt = performance.now() + seconds * 1000;
    let cursor: string | undefined;
    while (performance.now() < endAt) {
      const answer = await client.send('GET', cursor ? `${PAGE}&cursor=${encodeURIComponent(cursor)}` : PAGE);
      if (answer.status !== 200) {
        failures += record ? 1 : 0;
        firstFailure ??= `${answer.status} ${answer.body.slice(0, 200)}`;
        cursor = undefined;
        continue;
      }
      const page = JSON.parse(answer.body) as { data: unknown[]; nextCursor: string; hasMore: boolean };
      cursor = page.hasMore ? page.nextCursor : undefined;
      if (!record) continue;
      latencies.push(answer.ms);
      changes += page.data.length;
    }
  };
  try {
    const { seconds, resources } = await timedPhases(phase, run.warmup, run.duration, run.observe);
    return {
      perSecond: changes / seconds,
      p99Ms: percentile(latencies, 99),
      medianMs: percentile(latencies, 50),
      failures,
      samples: latencies.length,
      note: `pages of up to 1,000 changes, one follower; p99 and median are per page`,
      ...(firstFailure ? { note: `first failure: ${firstFailure}` } : {}),
      ...(resources ? { resources } : {}),
    };
  } finally {
    client.close();
  }
}
