// Webhook deliveries per second (issue 14: ≥ 1,000/s on SQLite), a row of the run. The bench company
// gets one endpoint (types: revenue_item.created) pointing at a lean node:http receiver in this
// process (the service runs with WEBHOOK_ALLOW_INSECURE=1, so a loopback http destination is
// allowed); one revenue batch of N new items through the API then commits N changes at once. The
// figure is messages answered 204 per second, from the batch's 200 to the last message: each read
// from the change log, signed, POSTed, answered and recorded in the delivery log by the service, in
// order. A smaller batch first warms the path (not timed). The endpoint is deleted afterwards, so no
// later row pays for deliveries.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { JsonClient } from './client.ts';
import { percentile, type Measurement } from './measurement.ts';
import { revenueBatch } from './revenue.ts';
import type { Observer } from './resources.ts';

export interface DeliveryRun {
  url: string;
  idToken: string;
  departmentIds: readonly string[];
  /** Changes in the measured backlog (1 to 5,000: one revenue batch). */
  changes: number;
  observe?: Observer;
}

const WARM_UP_CHANGES = 200;
const WEBHOOKS = '/api/v1/company/webhooks';

/**
 * Counts messages and the gaps between them. It verifies no signature (the webhook tests do, with
 * `standardwebhooks`); it only checks that the change seqs in the webhook-id headers (`chg_<seq>`)
 * rise, which costs nothing, and counts any that does not as a failure.
 */
class Receiver {
  readonly server: Server;
  count = 0;
  outOfOrder = 0;
  readonly gaps: number[] = [];
  #lastSeq = 0;
  #lastAt = 0;
  #waiting: { count: number; resolve: () => void } | undefined;

  constructor() {
    this.server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(204).end();
        this.#received(Number(/^chg_(\d+)$/.exec(String(request.headers['webhook-id']))?.[1]));
      });
    });
  }

  #received(seq: number): void {
    const now = performance.now();
    if (this.count > 0) this.gaps.push(now - this.#lastAt);
    if (!(seq > this.#lastSeq)) this.outOfOrder += 1;
    this.#lastSeq = Math.max(this.#lastSeq, seq || 0);
    this.#lastAt = now;
    this.count += 1;
    if (this.#waiting && this.count >= this.#waiting.count) this.#waiting.resolve();
  }

  /** Resolves once `count` messages in all have arrived, or after `timeoutMs` (the caller reads `count`). */
  until(count: number, timeoutMs: number): Promise<void> {
    if (this.count >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#waiting = { count, resolve: () => (clearTimeout(timer), resolve()) };
    });
  }

  /** Forgets the gaps so far (the warm-up's). */
  startMeasuring(): void {
    this.gaps.length = 0;
    this.outOfOrder = 0;
  }
}

async function listen(receiver: Receiver): Promise<string> {
  receiver.server.listen(0, '127.0.0.1');
  await once(receiver.server, 'listening');
  const address = receiver.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
}

export async function measureDeliveries(run: DeliveryRun): Promise<Measurement> {
  const client = new JsonClient(run.url, 1, { authorization: `Bearer ${run.idToken}` });
  const receiver = new Receiver();
  let endpointId: string | undefined;
  try {
    const receiverUrl = await listen(receiver);
    endpointId = (await client.json<{ id: string }>('POST', WEBHOOKS, { url: receiverUrl, types: ['revenue_item.created'], description: 'bench receiver' })).id;
    const batch = (category: string, count: number) => ({ items: revenueBatch(run.departmentIds, '2023-01-01', category, 0).items.slice(0, count) });
    // Bounded: at 100/s the measured backlog would still arrive.
    const timeoutMs = Math.max(30_000, run.changes * 10);
    await client.json('POST', '/api/v1/company/revenue', batch('webhook-warm-up', WARM_UP_CHANGES));
    await receiver.until(WARM_UP_CHANGES, timeoutMs);
    const before = receiver.count;
    receiver.startMeasuring();
    const stopObserving = await run.observe?.();
    await client.json('POST', '/api/v1/company/revenue', batch('webhook-run', run.changes));
    const started = performance.now();
    await receiver.until(before + run.changes, timeoutMs);
    const seconds = (performance.now() - started) / 1000;
    const resources = await stopObserving?.();
    const received = receiver.count - before;
    return {
      perSecond: received / seconds,
      p99Ms: percentile(receiver.gaps, 99),
      medianMs: percentile(receiver.gaps, 50),
      failures: run.changes - received + receiver.outOfOrder,
      samples: received,
      note: `${received.toLocaleString('en-US')} of ${run.changes.toLocaleString('en-US')} messages in ${seconds.toFixed(2)} s after the batch's 200; p99 and median are of the gap between consecutive messages${receiver.outOfOrder ? `; ${receiver.outOfOrder} out of order` : ''}`,
      ...(resources ? { resources } : {}),
    };
  } finally {
    if (endpointId) await client.send('DELETE', `${WEBHOOKS}/${endpointId}`).catch(() => undefined);
    client.close();
    receiver.server.closeAllConnections();
    receiver.server.close();
  }
}
