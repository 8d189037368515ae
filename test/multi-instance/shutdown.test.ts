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
    instance = await startInstance({ port: shared.ports[0], env: shared.env });
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
    await sleep(300);

    const exited = instance.stop();
    await sleep(300);
    assert.ok(instance.alive(), 'still draining the request in flight');
    await assert.rejects(fetch(`${instance.url}/healthz`), 'no new connections once draining');
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
