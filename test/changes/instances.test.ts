// The delta endpoint's guarantee across instances (CONTRACT §7): three server processes on one
// PostgreSQL database write at once — timeclock events (one statement each) and revenue batches (a
// transaction of many changes) — while a reader follows the cursor with long polls on one of them.
// It must see every change exactly once, in seq order; and a long poll on one instance must wake
// within 2 seconds of a commit on another.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { signedInCompany } from '../support/company.ts';
import { startCluster, type Cluster } from '../support/processes.ts';
import { needsPostgres, openSharedDatabase, type SharedDatabase } from '../support/shared-database.ts';
import { clockingStaff } from '../multi-instance/staff.ts';
import { api } from '../multi-instance/client.ts';

interface Change {
  seq: number;
  type: string;
  resourceId: string;
}
interface ChangesPage {
  data: Change[];
  nextCursor: string;
  hasMore: boolean;
}

const PEOPLE = Array.from({ length: 12 }, (_, i) => `p${i}`);
const PUNCHES = ['clock_in', 'break_start', 'break_end', 'clock_out', 'clock_in', 'clock_out'];

describe('changes followed while three instances write at once', { skip: needsPostgres }, () => {
  let shared: SharedDatabase;
  let cluster: Cluster;
  let urls: string[];
  let token: string;

  const instance = (i: number) => urls[i % urls.length] ?? '';

  async function get<T>(url: string, path: string): Promise<T> {
    const response = await api(url, token, path);
    const body = (await response.json()) as T;
    assert.equal(response.status, 200, JSON.stringify(body));
    return body;
  }

  async function head(url: string): Promise<string> {
    return (await get<{ cursor: string }>(url, '/api/v1/company/changes/head')).cursor;
  }

  before(async () => {
    shared = await openSharedDatabase({ instances: 3, env: { RATE_LIMIT_API_PER_MINUTE: '100000' } });
    ({ token } = await signedInCompany(shared.ctx, { timezone: 'UTC', name: 'Writers', data: clockingStaff(PEOPLE) }));
    cluster = await startCluster(shared.ports, shared.env);
    urls = cluster.instances.map((i) => i.url);
  });

  after(async () => {
    await cluster?.stop();
    await shared?.close();
  });

  /** One person's punches in order, each to a different instance; returns the stored events' ids. */
  async function punchDay(person: string, index: number, start: number): Promise<string[]> {
    const ids: string[] = [];
    for (const [step, type] of PUNCHES.entries()) {
      const body = { eventId: randomUUID(), badgeId: `badge-${person}`, type, occurredAt: new Date(start + step * 60_000).toISOString(), source: 'terminal' };
      const response = await api(instance(index + step), token, '/api/v1/timeclock/events', { method: 'POST', body });
      const stored = (await response.json()) as { id: string };
      assert.equal(response.status, 200, JSON.stringify(stored));
      ids.push(stored.id);
    }
    return ids;
  }

  /** Revenue batches sent to every instance while the punches go on; returns how many changes they made. */
  async function revenueBatches(departmentId: string): Promise<number> {
    let made = 0;
    await Promise.all([0, 1, 2].map(async (i) => {
      for (let round = 0; round < 4; round++) {
        const items = Array.from({ length: 25 }, (_, day) => ({ departmentId, date: `2026-0${i + 1}-${String(day + 1).padStart(2, '0')}`, kind: 'realised', amount: round * 100 + day }));
        const response = await api(instance(i), token, '/api/v1/company/revenue', { method: 'POST', body: { items } });
        const outcome = (await response.json()) as { created: number; updated: number };
        assert.equal(response.status, 200, JSON.stringify(outcome));
        made += outcome.created + outcome.updated;
      }
    }));
    return made;
  }

  it('a reader following the cursor with long polls sees every change exactly once, in seq order', async () => {
    const configuration = await get<{ departments: Array<{ id: string }> }>(instance(0), '/api/v1/company/configuration');
    const departmentId = configuration.departments[0]?.id ?? '';
    let cursor = await head(instance(0));
    const seen: Change[] = [];
    let writing = true;
    const reader = (async () => {
      // Keeps reading until the writers are done and a page comes back empty.
      for (;;) {
        const page = await get<ChangesPage>(instance(2), `/api/v1/company/changes?limit=50&wait=1&cursor=${encodeURIComponent(cursor)}`);
        seen.push(...page.data);
        cursor = page.nextCursor;
        if (!writing && page.data.length === 0) return;
      }
    })();
    const start = Date.now() - 3_600_000;
    const [eventIds, revenueChanges] = await Promise.all([
      Promise.all(PEOPLE.map((person, index) => punchDay(person, index, start))),
      revenueBatches(departmentId),
    ]);
    writing = false;
    await reader;

    const seqs = seen.map((c) => c.seq);
    assert.deepEqual(seqs, seqs.toSorted((a, b) => a - b), 'in seq order');
    assert.equal(new Set(seqs).size, seqs.length, 'each change once');
    const events = seen.filter((c) => c.type === 'timeclock_event.created').map((c) => c.resourceId);
    assert.deepEqual(events.toSorted(), eventIds.flat().toSorted(), 'every stored event, once');
    assert.equal(seen.filter((c) => c.type.startsWith('revenue_item.')).length, revenueChanges);
  });

  it('a long poll on one instance wakes within 2 seconds of a commit on another', async () => {
    const cursor = await head(instance(1));
    const waiting = get<ChangesPage>(instance(1), `/api/v1/company/changes?wait=20&cursor=${encodeURIComponent(cursor)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const body = { eventId: randomUUID(), badgeId: 'badge-p0', type: 'clock_in', occurredAt: new Date().toISOString(), source: 'terminal' };
    const response = await api(instance(0), token, '/api/v1/timeclock/events', { method: 'POST', body });
    assert.equal(response.status, 200);
    const committed = performance.now();
    const page = await waiting;
    const latency = performance.now() - committed;
    assert.deepEqual(page.data.map((c) => c.type), ['timeclock_event.created']);
    assert.ok(latency < 2000, `answered ${latency} ms after the commit on another instance`);
  });
});
