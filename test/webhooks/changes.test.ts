// Changes of the change log reach webhook endpoints (CONTRACT §7): only those committed after the
// endpoint's creation, of its types, each once and in seq order with the change id as webhook-id and
// the change as data; a failing change holds the later ones back; a replay of a period sends them
// again with their original ids (the endpoint's own: none from before its creation, by origin_seq or,
// for a row without one, by its creation instant); a retry re-sends one; a replay refused while changes
// wait for a disabled endpoint says to enable it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/platform/clock.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { readChangeWindow } from '../../src/changes/change-reads.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany, type SignedInCompany } from '../support/company.ts';
import { getJson, postJson } from '../support/http.ts';
import { eventually } from '../multi-instance/client.ts';
import { useReceivers, assertVerifies, type Receiver } from './receiver.ts';
import { WEBHOOKS, createEndpoint, deliveries } from './helpers.ts';

interface ChangeData {
  seq: number;
  id: string;
  type: string;
  resourceType: string;
  resourceId: string;
  occurredAt: string;
  deleted: boolean;
  data: { name?: string } | null;
}

describe('changes delivered to webhook endpoints', () => {
  const clock = new ManualClock();
  let server: TestServer;
  let company: SignedInCompany;
  const receiver = useReceivers();

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_INSECURE: '1', WEBHOOK_RETRY_SCHEDULE: '5s,5m' }, { clock, inProcess: true });
    company = await signedInCompany(server.ctx);
  });
  after(() => server.close());

  let departments = 0;
  /** Imports `count` new departments: `count` department.created changes, in this order. */
  async function addDepartments(count: number): Promise<string[]> {
    const names = Array.from({ length: count }, () => `Department ${++departments}`);
    await importCompanyData(server.ctx.db, company.tenant.companyId, { departments: names.map((name) => ({ ref: name, name, code: `D${departments}${name.length}` })) });
    return names;
  }

  const changesOf = (received: Receiver) => received.received.map((message) => message.json.data as unknown as ChangeData);

  it('sends the changes committed after the endpoint\'s creation, each once, in seq order, signed', async () => {
    await addDepartments(2);
    const target = await receiver();
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: target.url });
    const names = await addDepartments(5);
    await target.waitFor(5);
    await sleep(300);
    const changes = changesOf(target);
    assert.deepEqual(changes.map((change) => change.data?.name), names, 'only the later departments, in order');
    assert.ok(changes.every((change, i) => i === 0 || change.seq > (changes[i - 1]?.seq ?? 0)));
    for (const message of target.received) {
      assertVerifies(endpoint.secret, message);
      const change = message.json.data as unknown as ChangeData;
      assert.equal(message.id, change.id, 'webhook-id is the change id');
      assert.equal(message.json.type, 'department.created');
      assert.equal(message.json.timestamp, change.occurredAt);
      assert.equal(change.resourceType, 'department');
    }
    // The change as the change log (and so the delta endpoint) holds it.
    const logged = (await readChangeWindow(server.ctx.db, company.tenant.companyId, { afterSeq: (changes[0]?.seq ?? 1) - 1, limit: 5 })).changes;
    assert.deepEqual(logged, changes);
  });

  it('sends only the endpoint\'s types', async () => {
    const target = await receiver();
    await createEndpoint(server.baseUrl, company.token, { url: target.url, types: ['department.deleted'] });
    const [name] = await addDepartments(1);
    await importCompanyData(server.ctx.db, company.tenant.companyId, { departments: [{ ref: name, name, code: 'X', deleted: true }] });
    await target.waitFor(1);
    await sleep(300);
    assert.deepEqual(changesOf(target).map((change) => [change.type, change.deleted, change.data]), [['department.deleted', true, null]]);
  });

  it('holds the later changes back while one fails, then delivers them all in order', async () => {
    const target = await receiver((index) => ({ status: index === 0 ? 503 : 200 }));
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: target.url });
    const names = await addDepartments(3);
    await target.waitFor(1);
    await sleep(500);
    assert.equal(target.received.length, 1, 'nothing after the failing change');
    clock.advance(6000);
    await target.waitFor(4);
    assert.deepEqual(changesOf(target).map((change) => change.data?.name), [names[0], names[0], names[1], names[2]]);
    await eventually('four attempts are logged', 5000, async () => (await deliveries(server.baseUrl, company.token, endpoint.id)).length === 4);
    const log = await deliveries(server.baseUrl, company.token, endpoint.id);
    assert.deepEqual(log.map((delivery) => delivery.statusCode), [200, 200, 200, 503]);
    assert.deepEqual(log.map((delivery) => delivery.attempt), [1, 1, 2, 1]);
  });

  it('replays a period with the original ids, and retries one delivery', async () => {
    const target = await receiver();
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: target.url, types: ['department.created'] });
    const from = new Date().toISOString();
    await addDepartments(3);
    await target.waitFor(3);
    const firstIds = target.received.map((message) => message.id);
    const replay = await postJson<{ queued: number }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/replay`, company.token, { from, to: new Date(Date.now() + 60_000).toISOString() });
    assert.equal(replay.status, 202, replay.text);
    assert.equal(replay.body.queued, 3);
    await target.waitFor(6);
    assert.deepEqual(target.received.slice(3).map((message) => message.id), firstIds);
    for (const message of target.received) assertVerifies(endpoint.secret, message);

    const log = await deliveries(server.baseUrl, company.token, endpoint.id);
    const retried = log.find((delivery) => delivery.messageId === firstIds[1]);
    const retry = await postJson<{ messageId: string }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/deliveries/${retried?.id}/retry`, company.token, {});
    assert.equal(retry.status, 202, retry.text);
    assert.equal(retry.body.messageId, firstIds[1]);
    await target.waitFor(7);
    assert.equal(target.received[6]?.id, firstIds[1]);
    assert.deepEqual(target.received[6]?.json.data, target.received[1]?.json.data);
  });

  it('replays only the endpoint\'s own changes: none committed before its creation', async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    await addDepartments(2);
    const target = await receiver();
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: target.url, types: ['department.created'] });
    await addDepartments(1);
    await target.waitFor(1);
    const replay = await postJson<{ queued: number }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/replay`, company.token, { from, to: new Date(Date.now() + 60_000).toISOString() });
    assert.equal(replay.status, 202, replay.text);
    assert.equal(replay.body.queued, 1, 'the two departments created before the endpoint are not its changes');
    await target.waitFor(2);
    assert.equal(target.received[1]?.id, target.received[0]?.id);
  });

  it('replays, for an endpoint without origin_seq (created by an older release), nothing recorded before its creation', async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    await addDepartments(2);
    await sleep(5);
    const createdAt = Date.now();
    await sleep(5);
    const target = await receiver();
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: target.url, types: ['department.created'] });
    // The row as a release before migration 0019 writes it: no origin_seq, its creation instant.
    await server.ctx.db.updateTable('webhook_endpoints').set({ origin_seq: null, created_at: createdAt }).where('id', '=', endpoint.id).execute();
    await addDepartments(1);
    await target.waitFor(1);
    const replay = await postJson<{ queued: number }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/replay`, company.token, { from, to: new Date(Date.now() + 60_000).toISOString() });
    assert.equal(replay.status, 202, replay.text);
    assert.equal(replay.body.queued, 1, 'the two departments recorded before the endpoint\'s creation are not replayed');
  });

  it('refuses a replay while changes wait for a disabled endpoint, saying to enable it', async () => {
    const target = await receiver(() => ({ status: 410 }));
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: target.url, types: ['department.created'] });
    const period = { from: new Date(Date.now() - 1000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    await addDepartments(1);
    await target.waitFor(1);
    await eventually('the endpoint is disabled', 5000, async () => (await getJson<{ enabled: boolean }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}`, company.token)).body.enabled === false);
    const first = await postJson(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/replay`, company.token, period);
    assert.equal(first.status, 202, first.text);
    const again = await postJson<{ code: string; detail: string }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/replay`, company.token, period);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.code, 'replay_in_progress');
    assert.match(again.body.detail, /disabled.*enable it again/);
  });

  it('resumes with the failed change when a disabled endpoint is enabled again', async () => {
    const target = await receiver((index) => ({ status: index === 0 ? 410 : 200 }));
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: target.url });
    const names = await addDepartments(2);
    await target.waitFor(1);
    await eventually('the endpoint is disabled', 5000, async () => (await getJson<{ enabled: boolean }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}`, company.token)).body.enabled === false);
    const more = await addDepartments(1);
    await sleep(500);
    assert.equal(target.received.length, 1);
    const enabled = await server.fetch(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}`, { method: 'PATCH', headers: { authorization: `Bearer ${company.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: true }) });
    assert.equal(enabled.status, 200);
    await target.waitFor(4);
    assert.deepEqual(changesOf(target).map((change) => change.data?.name), [names[0], names[0], names[1], more[0]]);
  });
});
