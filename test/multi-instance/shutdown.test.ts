// Graceful shutdown (docs/deployment.md): an instance told to stop (SIGTERM, as an orchestrator does
// during a rolling deploy) finishes the request it is serving, stores what it answered 200 for, stops
// taking new connections and exits 0. Runs on SQLite and PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { signedInCompany, type SignedInCompany } from '../support/company.ts';
import { startInstance, type Instance } from '../support/processes.ts';
import { openSharedDatabase, type SharedDatabase } from '../support/shared-database.ts';
import { clockingStaff } from './staff.ts';
import { eventually } from './client.ts';

const ITEMS = 500;

describe('an instance stopped with SIGTERM', () => {
  let shared: SharedDatabase;
  let instance: Instance;
  let company: SignedInCompany;
  let departmentId: string;

  before(async () => {
    shared = await openSharedDatabase();
    company = await signedInCompany(shared.ctx, { timezone: 'UTC', data: clockingStaff([]) });
    const department = await shared.ctx.db.selectFrom('departments').select('id').where('company_id', '=', company.tenant.companyId).executeTakeFirstOrThrow();
    departmentId = department.id;
    // At info, it logs each request as it arrives and the signal as it drains: what the test waits for.
    instance = await startInstance({ port: shared.ports[0], env: { ...shared.env, LOG_LEVEL: 'info' } });
  });

  after(async () => {
    if (instance?.alive()) instance.child.kill('SIGKILL');
    await instance?.stop();
    await shared?.close();
  });

  it('finishes the batch it is receiving, stores it, and exits 0 at once', async () => {
    const items = Array.from({ length: ITEMS }, (_, day) => ({ departmentId, date: new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString().slice(0, 10), kind: 'prognosis', amount: 100.5 }));
    const payload = new TextEncoder().encode(JSON.stringify({ items }));
    let sender!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (sender = controller) });
    // Half the body now: the request is in flight when the signal arrives.
    sender.enqueue(payload.subarray(0, payload.length / 2));
    const answer = fetch(`${instance.url}/api/v1/company/revenue`, { method: 'POST', headers: { authorization: `Bearer ${company.token}`, 'content-type': 'application/json' }, body, duplex: 'half' });
    // Waited for, not slept: on a loaded machine the instance may not have read the request 300 ms
    // later, nor handled the signal 300 ms after it was sent.
    const logged = (pattern: RegExp) => async () => pattern.test(instance.output());
    await eventually('the instance has the request', 30_000, logged(/"url":"\/api\/v1\/company\/revenue".*"msg":"incoming request"/));

    const exited = instance.stop();
    await eventually('the instance drains', 30_000, logged(/shutting down: draining requests/));
    await sleep(300);
    assert.ok(instance.alive(), 'still draining the request in flight');
    // It stops listening as it begins to drain (a few turns of its loop after the log line).
    await eventually('no new connections once draining', 5000, () => fetch(`${instance.url}/healthz`).then(async (response) => {
      await response.body?.cancel();
      return false;
    }, () => true));
    sender.enqueue(payload.subarray(payload.length / 2));
    sender.close();

    const response = await answer;
    const outcome = (await response.json()) as Record<string, unknown>;
    assert.equal(response.status, 200, JSON.stringify(outcome));
    assert.deepEqual(outcome, { received: ITEMS, created: ITEMS, updated: 0, unchanged: 0 });
    const stored = await shared.ctx.db.selectFrom('inbound_items').select((eb) => eb.fn.countAll<number>().as('count')).where('company_id', '=', company.tenant.companyId).executeTakeFirstOrThrow();
    assert.equal(Number(stored.count), ITEMS);
    // The draining request was the last one: the process must not wait for its 10 s forced exit.
    const code = await Promise.race([exited, sleep(3000, 'still running after 3 s')]);
    assert.equal(code, 0);
  });
});
