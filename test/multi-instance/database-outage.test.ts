// Losing the database mid-traffic (issue 5): one real server process reaches PostgreSQL through a TCP
// proxy that the test cuts for about 2 seconds and then restores, while timeclock events and revenue
// batches keep arriving. The instance must say so (503, not a hang or a crash), recover by itself,
// and never have lost or half-written anything it answered 200 for.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { signedInCompany } from '../support/company.ts';
import { startInstance, type Instance } from '../support/processes.ts';
import { needsPostgres, openSharedDatabase, type SharedDatabase } from '../support/shared-database.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { clockingStaff } from './staff.ts';
import type { Tenant } from '../support/tenants.ts';
import { eventually } from './client.ts';

const PEOPLE = ['ana', 'ben', 'cas'];
const ITEMS_PER_BATCH = 20;
/** Longer than any answer may take, even during the outage: a request still open by then hangs. */
const HANG_MS = 6000;

interface Outcome {
  status: number | 'hang' | 'network';
  /** For 'network': what failed. */
  error?: string;
  /** For 503: problem+json with status 503. */
  problem?: boolean;
}

function instant(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The server's log lines about requests that failed unexpectedly (500). */
function failedRequests(log: string): string {
  return log.split('\n').filter((line) => line.includes('"msg":"request failed"')).join('\n');
}

async function call(url: string, token: string, path: string, body?: unknown): Promise<Outcome & { json?: Record<string, unknown> }> {
  try {
    const response = await fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const json = (await response.json()) as Record<string, unknown>;
    const problem = response.headers.get('content-type')?.startsWith('application/problem+json') === true && json.status === response.status;
    return { status: response.status, problem, json };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { status: 'hang' };
    return { status: 'network', error: String((error as Error).cause ?? error) };
  }
}

describe('an instance that loses PostgreSQL mid-traffic', { skip: needsPostgres, concurrency: 1 }, () => {
  let shared: SharedDatabase;
  let proxy: TcpProxy;
  let instance: Instance;
  let tenant: Tenant;
  let token: string;
  let departmentId: string;
  const userOfBadge = new Map<string, string>();

  before(async () => {
    shared = await openSharedDatabase({ env: { RATE_LIMIT_API_PER_MINUTE: '100000' } });
    const { database, env } = shared;
    ({ tenant, token } = await signedInCompany(shared.ctx, { timezone: 'UTC', name: 'Outage', data: clockingStaff(PEOPLE) }));

    // Only this instance goes through the proxy; the test's own handle keeps the direct connection.
    const direct = new URL(database.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(database.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    instance = await startInstance({ port: shared.ports[0], env: { ...env, DATABASE_URL: proxied.toString(), DB_POOL_SIZE: '4', DB_STATEMENT_TIMEOUT_MS: '2000' } });

    const configuration = await call(instance.url, token, '/api/v1/company/configuration');
    departmentId = ((configuration.json?.departments as Array<{ id: string }> | undefined)?.[0]?.id) ?? '';
    const badges = await call(instance.url, token, '/api/v1/timeclock/badges');
    for (const badge of (badges.json?.data as Array<{ badgeId: string; userId: string }> | undefined) ?? []) userOfBadge.set(badge.badgeId, badge.userId);
  });

  after(async () => {
    await instance?.stop();
    await proxy?.close();
    await shared?.close();
  });

  it('answers 503 while cut, recovers without a restart, and keeps every event and batch it accepted, whole', async () => {
    let running = true;
    let restoredAt = Number.POSITIVE_INFINITY;
    const outcomes: Outcome[] = [];
    const acceptedAfterRestore = new Set<string>();
    const accepted = new Map<string, Array<{ eventId: string; sequence: number }>>();
    const batches: Array<{ category: string; status: Outcome['status'] }> = [];
    const start = Date.now() - 4 * 3_600_000;

    // A terminal per person: each event is sent after the previous one got 200, and retried with the
    // same eventId after a 503, as the contract tells senders to do.
    const terminal = async (person: string) => {
      const mine: Array<{ eventId: string; sequence: number }> = [];
      accepted.set(person, mine);
      for (let i = 0; running; i += 1) {
        const event = { eventId: randomUUID(), badgeId: `badge-${person}`, type: i % 2 === 0 ? 'clock_in' : 'clock_out', occurredAt: instant(start + i * 60_000), source: 'terminal' };
        for (;;) {
          const outcome = await call(instance.url, token, '/api/v1/timeclock/events', event);
          outcomes.push(outcome);
          if (outcome.status === 200) {
            mine.push({ eventId: event.eventId, sequence: outcome.json?.sequence as number });
            if (Date.now() > restoredAt) acceptedAfterRestore.add(person);
            break;
          }
          if (outcome.status !== 503) return;
          await sleep(100);
        }
      }
    };
    // A point-of-sale system sending revenue batches, each a distinct category, not retried: a batch
    // that got 503 must have been stored whole or not at all.
    const till = async () => {
      for (let n = 0; running; n += 1) {
        const category = `batch-${n}`;
        const items = Array.from({ length: ITEMS_PER_BATCH }, (_, day) => ({ departmentId, date: utcDate(Date.now() - (day + 1) * 86_400_000), kind: 'realised', amount: n + 0.25, category }));
        const outcome = await call(instance.url, token, '/api/v1/company/revenue', { items });
        outcomes.push(outcome);
        batches.push({ category, status: outcome.status });
        if (outcome.status === 200 && Date.now() > restoredAt) acceptedAfterRestore.add('till');
        if (outcome.status !== 200 && outcome.status !== 503) return;
        if (outcome.status === 503) await sleep(100);
      }
    };
    let senders = PEOPLE.length + 1;
    const traffic = Promise.all([...PEOPLE.map(terminal), till()].map((sender) => sender.finally(() => (senders -= 1))));

    // Cut once every sender has been answered 200 (or stopped: the assertions below name it), not after
    // a fixed 700 ms: on a loaded machine the till's first batch may not be through by then, and the
    // test wants two stored.
    const flowing = () => [...accepted.values()].every((events) => events.length > 0) && batches.some((batch) => batch.status === 200);
    await eventually('traffic flows before the cut', 30_000, async () => flowing() || senders < PEOPLE.length + 1);
    proxy.cut();
    const cutAt = Date.now();
    const [ready, company] = await Promise.all([
      call(instance.url, token, '/readyz'),
      call(instance.url, token, '/api/v1/company/configuration'),
    ]);
    assert.ok(instance.alive(), `the instance survives the cut:\n${instance.output()}`);
    assert.equal(ready.status, 503, `readiness fails while the database is unreachable: ${JSON.stringify(ready)}\n${instance.output()}`);
    assert.deepEqual(ready.json, { status: 'unavailable', checks: { database: 'down' } });
    assert.equal(company.status, 503);
    assert.equal(company.problem, true, 'a company call answers problem+json');
    assert.ok(Date.now() - cutAt < 5000, 'both answered within a few seconds');

    await sleep(Math.max(0, 2000 - (Date.now() - cutAt)));
    proxy.restore();
    restoredAt = Date.now();
    await eventually('ready again after the database returned', 10_000, async () => (await call(instance.url, token, '/readyz')).status === 200);
    // A sender stops early on an answer other than 200 or 503; the assertions below then name it.
    await eventually('every sender accepted again', 10_000, async () => acceptedAfterRestore.size === PEOPLE.length + 1 || senders < PEOPLE.length + 1);
    running = false;
    await traffic;

    assert.ok(instance.alive(), `the instance kept running:\n${instance.output()}`);
    const unexpected = outcomes.filter((o) => o.status !== 200 && !(o.status === 503 && o.problem));
    assert.deepEqual(unexpected, [], `every answer is 200, or 503 problem+json; nothing hangs, nothing breaks. The instance logged:\n${failedRequests(instance.output())}`);
    assert.ok(outcomes.some((o) => o.status === 503), 'the outage hit the traffic');

    // Timeclock: exactly the events answered 200, each with the sequence it was answered with, gapless.
    for (const person of PEOPLE) {
      const stored = await shared.ctx.db
        .selectFrom('timeclock_events')
        .select(['event_id', 'sequence'])
        .where('company_id', '=', tenant.companyId)
        .where('employee_id', '=', userOfBadge.get(`badge-${person}`) ?? '')
        .orderBy('sequence')
        .execute();
      const answered = accepted.get(person) ?? [];
      assert.deepEqual(stored.map((row) => ({ eventId: row.event_id, sequence: row.sequence })), answered, `${person}'s events`);
      assert.deepEqual(stored.map((row) => row.sequence), stored.map((_, i) => i + 1), `${person}'s sequence is gapless`);
    }

    // Revenue: every batch is stored whole or not at all; every batch answered 200 is stored whole.
    const rows = await shared.ctx.db
      .selectFrom('inbound_items')
      .select(['category', 'amount_minor'])
      .where('company_id', '=', tenant.companyId)
      .where('stream', '=', 'revenue')
      .execute();
    const storedPerBatch = new Map<string, number>();
    for (const row of rows) storedPerBatch.set(row.category, (storedPerBatch.get(row.category) ?? 0) + 1);
    for (const batch of batches) {
      const stored = storedPerBatch.get(batch.category) ?? 0;
      if (batch.status === 200) assert.equal(stored, ITEMS_PER_BATCH, `${batch.category} answered 200 is stored whole`);
      else assert.ok(stored === 0 || stored === ITEMS_PER_BATCH, `${batch.category} (${batch.status}) is all or nothing, found ${stored}`);
    }
    assert.equal(rows.length, [...storedPerBatch.values()].reduce((sum, n) => sum + n, 0));
    assert.ok(batches.filter((b) => b.status === 200).length >= 2);
  });

  it('answers 503 within seconds during a network partition (nothing answers, nothing resets), and recovers', async () => {
    proxy.cut('blackhole');
    const cutAt = Date.now();
    try {
      const [ready, company] = await Promise.all([call(instance.url, token, '/readyz'), call(instance.url, token, '/api/v1/company/configuration')]);
      assert.equal(ready.status, 503, JSON.stringify(ready));
      assert.equal(company.status, 503, JSON.stringify(company));
      assert.ok(Date.now() - cutAt < 5000, `answered after ${Date.now() - cutAt} ms`);
    } finally {
      proxy.restore();
    }
    await eventually('ready again after the partition', 10_000, async () => (await call(instance.url, token, '/readyz')).status === 200);
    assert.equal((await call(instance.url, token, '/api/v1/company/configuration')).status, 200);
  });
});
