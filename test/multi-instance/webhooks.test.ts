// Webhooks with three instances on one PostgreSQL database (CONTRACT §7): while all three write
// changes at once and deliver, each receiver gets each message exactly once and in seq order (one
// instance at a time per endpoint, through the leases); one instance stopped with SIGTERM meanwhile
// hands its endpoints on without a duplicate; an instance killed mid-delivery leaves its message to
// another, which sends it again within a minute.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readChangeWindow } from '../../src/changes/change-reads.ts';
import { signedInCompany, type SignedInCompany } from '../support/company.ts';
import { startCluster, type Cluster } from '../support/processes.ts';
import { needsPostgres, openSharedDatabase, type SharedDatabase } from '../support/shared-database.ts';
import { startReceiver, assertVerifies, type Receiver } from '../webhooks/receiver.ts';
import { createEndpoint } from '../webhooks/helpers.ts';
import { api } from './client.ts';
import { clockingStaff } from './staff.ts';

const ENDPOINTS = 4;
const BATCHES_PER_INSTANCE = 8;
const ITEMS_PER_BATCH = 5;

describe('webhooks delivered by three instances', { skip: needsPostgres }, () => {
  let shared: SharedDatabase;
  let cluster: Cluster;
  let company: SignedInCompany;
  let departmentId: string;
  const receivers: Receiver[] = [];

  before(async () => {
    shared = await openSharedDatabase({ instances: 3, env: { WEBHOOK_ALLOW_INSECURE: '1', WEBHOOK_RETRY_SCHEDULE: '1s', RATE_LIMIT_API_PER_MINUTE: '100000' } });
    company = await signedInCompany(shared.ctx, { timezone: 'UTC', data: clockingStaff([]) });
    departmentId = (await shared.ctx.db.selectFrom('departments').select('id').where('company_id', '=', company.tenant.companyId).executeTakeFirstOrThrow()).id;
    cluster = await startCluster(shared.ports, shared.env);
  });

  after(async () => {
    for (const receiver of receivers) await receiver.close();
    for (const instance of cluster?.instances ?? []) if (instance.alive()) instance.child.kill('SIGKILL');
    await cluster?.stop();
    await shared?.close();
  });

  /** A revenue batch of distinct days: ITEMS_PER_BATCH revenue_item.created changes. */
  function batch(instance: number, index: number): unknown {
    const first = Date.UTC(2025, 0, 1) + (instance * 1000 + index * ITEMS_PER_BATCH) * 86_400_000;
    return { items: Array.from({ length: ITEMS_PER_BATCH }, (_, day) => ({ departmentId, date: new Date(first + day * 86_400_000).toISOString().slice(0, 10), kind: 'realised', amount: 10 + day })) };
  }

  it('sends each change once and in seq order to every endpoint, while all three write and one stops', async () => {
    const urls = cluster.instances.map((instance) => instance.url);
    const endpoints = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const receiver = await startReceiver();
      receivers.push(receiver);
      endpoints.push(await createEndpoint(urls[i % 3] ?? '', company.token, { url: receiver.url, types: ['revenue_item.created'] }));
    }
    const writes = urls.map(async (url, instance) => {
      for (let index = 0; index < BATCHES_PER_INSTANCE; index++) {
        const response = await api(url, company.token, '/api/v1/company/revenue', { method: 'POST', body: batch(instance, index) });
        assert.equal(response.status, 200, await response.text());
      }
    });
    await Promise.all(writes);
    // A rolling restart of one instance while messages flow: it finishes and records what it sends.
    const stopped = cluster.instances[2];
    assert.equal(await stopped?.stop(), 0);

    const expected = 3 * BATCHES_PER_INSTANCE * ITEMS_PER_BATCH;
    const changes = (await readChangeWindow(shared.ctx.db, company.tenant.companyId, { afterSeq: 0, limit: 10_000, types: ['revenue_item.created'] })).changes;
    assert.equal(changes.length, expected);
    for (const [i, receiver] of receivers.entries()) {
      await receiver.waitFor(expected, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.deepEqual(receiver.received.map((message) => message.id), changes.map((change) => change.id), `endpoint ${i}: each change once, in seq order`);
      for (const message of receiver.received) assertVerifies(endpoints[i]?.secret ?? '', message);
    }
  });

  it('takes over the endpoint of an instance killed mid-delivery within a minute, resending the same message', async () => {
    const receiver = await startReceiver((index) => (index === 0 ? { status: 200, delayMs: 600_000 } : { status: 200 }));
    receivers.push(receiver);
    const live = cluster.instances.filter((instance) => instance.alive());
    const endpoint = await createEndpoint(live[0]?.url ?? '', company.token, { url: receiver.url });
    const response = await api(live[1]?.url ?? '', company.token, '/api/v1/company/revenue', { method: 'POST', body: batch(5, 0) });
    assert.equal(response.status, 200);
    const [first] = await receiver.waitFor(1, 10_000);
    const lease = await shared.ctx.db.selectFrom('webhook_endpoints').select('lease_owner').where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    const pid = Number(lease.lease_owner?.split('/')[1]);
    const holder = live.find((instance) => instance.child.pid === pid);
    assert.ok(holder, `the lease (${lease.lease_owner}) names a running instance`);
    const killedAt = Date.now();
    holder.child.kill('SIGKILL');

    const [, again] = await receiver.waitFor(2, 60_000);
    const tookMs = Date.now() - killedAt;
    assert.equal(again?.id, first?.id, 'the same message, with its id');
    assert.ok(tookMs < 60_000, `taken over after ${tookMs} ms`);
    await receiver.waitFor(ITEMS_PER_BATCH + 1, 20_000);
    const ids = receiver.received.map((message) => message.id);
    assert.deepEqual(ids.slice(1), [...new Set(ids.slice(1))], 'after the takeover, each change once');
    assert.equal(ids.length, ITEMS_PER_BATCH + 1);
  });
});
