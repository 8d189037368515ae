// Webhook deliveries per second (issue 14: ≥ 1,000/s on SQLite): the real service in this process on
// a fresh database, one endpoint to a local node:http receiver (WEBHOOK_ALLOW_INSECURE=1), and a
// backlog of changes recorded at once; the figure is changes delivered (2xx, recorded) per second,
// from the first delivery to the last, each message signed, sent, answered and logged in order.
//   npx node bench/webhooks.ts [--changes 5000] [--endpoints 1]    (WFS_TEST_DATABASE=postgres for PostgreSQL)
import { parseArgs } from 'node:util';
import { startTestServer } from '../test/support/server.ts';
import { signedInCompany } from '../test/support/company.ts';
import { startReceiver } from '../test/webhooks/receiver.ts';
import { createEndpoint } from '../test/webhooks/helpers.ts';
import { recordChanges } from '../src/changes/change-log.ts';
import { announceChanges } from '../src/changes/notifier.ts';

export interface DeliveryMeasurement {
  changes: number;
  endpoints: number;
  perSecond: number;
  seconds: number;
}

export async function measureDeliveries(changes: number, endpoints: number): Promise<DeliveryMeasurement> {
  const server = await startTestServer({ WEBHOOK_ALLOW_INSECURE: '1' });
  const receivers = await Promise.all(Array.from({ length: endpoints }, () => startReceiver()));
  try {
    const company = await signedInCompany(server.ctx);
    for (const receiver of receivers) await createEndpoint(server.baseUrl, company.token, { url: receiver.url });
    const { timezone } = await server.ctx.companies.find(company.tenant.companyId);
    const batch = Array.from({ length: changes }, (_, i) => ({ resourceType: 'department' as const, action: 'created' as const, resourceId: `dep_bench_${i}`, data: { id: `dep_bench_${i}`, name: `Department ${i}`, code: `D${i}` } }));
    await server.ctx.db.transaction().execute((trx) => recordChanges(trx, company.tenant.companyId, batch, { at: Date.now(), timezone }));
    const started = performance.now();
    announceChanges(server.ctx.db, company.tenant.companyId);
    await Promise.all(receivers.map((receiver) => receiver.waitFor(changes, 600_000)));
    const seconds = (performance.now() - started) / 1000;
    return { changes, endpoints, seconds, perSecond: (changes * endpoints) / seconds };
  } finally {
    for (const receiver of receivers) await receiver.close();
    await server.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { changes: { type: 'string', default: '5000' }, endpoints: { type: 'string', default: '1' } } });
  const result = await measureDeliveries(Number(values.changes), Number(values.endpoints));
  process.stdout.write(`${JSON.stringify({ ...result, perSecond: Math.round(result.perSecond), seconds: Math.round(result.seconds * 100) / 100 })}\n`);
}
