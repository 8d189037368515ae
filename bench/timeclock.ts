// Timeclock events per second across many people. Each person's events must arrive strictly in order
// (a later event is only sent once the previous one is answered), so this is a closed loop of
// `concurrency` workers, each cycling through its own share of the people, rather than wrk.
// With several instances the events go round-robin over them, as a load balancer would spread them:
// one person's consecutive events land on different instances.
import { randomUUID } from 'node:crypto';
import { JsonClient } from './client.ts';
import { percentile, timedPhases, type Measurement } from './measurement.ts';
import type { Observer } from './resources.ts';

const TYPES = ['clock_in', 'break_start', 'break_end', 'clock_out'] as const;

export interface Person {
  readonly userId: string;
  /** Events this person has sent so far, across every run on this database. */
  sent: number;
}

export interface TimeclockRun {
  urls: readonly string[];
  idToken: string;
  people: Person[];
  /** Instant of every person's first event; later events follow a minute apart. */
  firstEventAt: number;
  concurrency: number;
  warmup: number;
  duration: number;
  observe?: Observer;
}

function nextEvent(person: Person, index: number, firstEventAt: number) {
  const occurredAt = firstEventAt + person.sent * 60_000 + index * 1000;
  const type = TYPES[person.sent % TYPES.length];
  person.sent += 1;
  return { eventId: randomUUID(), userId: person.userId, type, occurredAt: new Date(occurredAt).toISOString(), source: 'terminal' };
}

export async function measureTimeclock(run: TimeclockRun): Promise<Measurement> {
  const concurrency = Math.min(run.concurrency, run.people.length);
  const clients = run.urls.map((url) => new JsonClient(url, concurrency, { authorization: `Bearer ${run.idToken}` }));
  let turn = 0;
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;

  const phase = async (seconds: number, record: boolean): Promise<void> => {
    const endAt = performance.now() + seconds * 1000;
    const worker = async (w: number): Promise<void> => {
      const mine = run.people.map((person, index) => ({ person, index })).filter((_, index) => index % concurrency === w);
      for (let i = 0; performance.now() < endAt; i++) {
        const { person, index } = mine[i % mine.length]!;
        const client = clients[turn++ % clients.length]!;
        const answer = await client.send('POST', '/api/v1/timeclock/events', nextEvent(person, index, run.firstEventAt));
        if (!record) continue;
        if (answer.status === 200) latencies.push(answer.ms);
        else {
          failures += 1;
          firstFailure ??= `${answer.status} ${answer.body.slice(0, 200)}`;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  };

  try {
    const { seconds, resources } = await timedPhases(phase, run.warmup, run.duration, run.observe);
    return {
      perSecond: latencies.length / seconds,
      p99Ms: percentile(latencies, 99),
      medianMs: percentile(latencies, 50),
      failures,
      samples: latencies.length,
      seconds,
      ...(firstFailure ? { note: `first failure: ${firstFailure}` } : {}),
      ...(resources ? { resources } : {}),
    };
  } finally {
    for (const client of clients) client.close();
  }
}
