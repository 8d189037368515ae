import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { useCompanyServer } from '../support/company.ts';
import { mintTokens } from '../support/tenants.ts';
import { ApiError, WfsClient } from '../../packages/client/src/index.ts';

// A terminal at a site: many people punch at once; the network drops answers and the service has
// hiccups. The client's per-person queue must deliver every punch exactly once, in order.
const PEOPLE = 24;
const PUNCHES = ['clock_in', 'break_start', 'break_end', 'clock_out'] as const;

const site = useCompanyServer({
  name: 'Site',
  data: {
    users: Array.from({ length: PEOPLE }, (_, i) => ({
      ref: `u${i}`, employeeNumber: `E${100 + i}`, firstName: `Person${i}`, lastName: 'Test', email: null,
      employmentStart: '2020-01-01', employmentEnd: null, badgeId: `B${100 + i}`, timeclockActive: true,
    })),
  },
});

interface Traffic {
  fetch: (request: Request) => Promise<Response>;
  inFlight: Map<string, number>;
  maxPerPerson: number;
  maxOverall: number;
  attempts: Map<string, number>;
}

/**
 * In front of the real server: every 5th event POST loses its answer after the service stored it,
 * every 7th first meets a 503; records how many requests per person were in flight at once.
 */
function unreliableNetwork(): Traffic {
  const traffic: Traffic = { inFlight: new Map(), maxPerPerson: 0, maxOverall: 0, attempts: new Map(), fetch: async () => new Response() };
  let posts = 0;
  let overall = 0;
  traffic.fetch = async (request) => {
    if (request.method !== 'POST' || !request.url.endsWith('/timeclock/events')) return fetch(request);
    const event = (await request.clone().json()) as { eventId: string; badgeId: string };
    const n = ++posts;
    traffic.attempts.set(event.eventId, (traffic.attempts.get(event.eventId) ?? 0) + 1);
    const now = (traffic.inFlight.get(event.badgeId) ?? 0) + 1;
    traffic.inFlight.set(event.badgeId, now);
    traffic.maxPerPerson = Math.max(traffic.maxPerPerson, now);
    traffic.maxOverall = Math.max(traffic.maxOverall, ++overall);
    try {
      if (n % 7 === 0) return new Response('{"status":503,"code":"unavailable","detail":"hiccup","title":"x","type":"x","requestId":"r"}', { status: 503 });
      const response = await fetch(request);
      if (n % 5 === 0) {
        await response.body?.cancel();
        throw new TypeError('fetch failed: connection reset');
      }
      return response;
    } finally {
      traffic.inFlight.set(event.badgeId, now - 1);
      overall--;
    }
  };
  return traffic;
}

async function client(fetchImpl?: (request: Request) => Promise<Response>): Promise<WfsClient> {
  const tokens = await mintTokens(site.server.ctx, site.tenant);
  return new WfsClient({ baseUrl: site.server.baseUrl, refreshToken: tokens.refresh_token ?? '', timeclock: { backoffMs: 5 }, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
}

test('a terminal simulation: every punch of every person arrives once, in order, despite lost answers and 503s', async () => {
  const traffic = unreliableNetwork();
  const terminal = await client(traffic.fetch);
  const { data: badges } = await terminal.api.GET('/api/v1/timeclock/badges', { params: { query: { companyId: site.tenant.companyId } } });
  assert.equal(badges?.data.length, PEOPLE);

  const start = DateTime.now().minus({ minutes: 30 });
  // Queued all at once, interleaved across people, as punches come in at a busy terminal.
  const sent = PUNCHES.flatMap((type, step) => (badges?.data ?? []).map((badge, person) => terminal.timeclock.send({
    badgeId: badge.badgeId, type, source: 'terminal', deviceId: 'terminal-1',
    occurredAt: start.plus({ minutes: step * 5, seconds: person }).toISO() ?? '',
  })));
  const stored = await Promise.all(sent);
  await terminal.timeclock.drain();

  assert.equal(stored.length, PEOPLE * PUNCHES.length);
  assert.equal(traffic.maxPerPerson, 1, 'one request per person at a time');
  assert.ok(traffic.maxOverall > 1, 'people are sent in parallel');
  assert.ok([...traffic.attempts.values()].some((n) => n > 1), 'some events were resent');
  for (const badge of badges?.data ?? []) {
    const mine = stored.filter((event) => event.badgeId === badge.badgeId);
    assert.deepEqual(mine.map((event) => [event.sequence, event.type, event.anomaly]), PUNCHES.map((type, i) => [i + 1, type, null]));
    assert.equal(new Set(mine.map((event) => event.eventId)).size, PUNCHES.length);
  }

  // The service holds exactly the punches sent: resending with the same eventId stored nothing twice.
  const one = badges?.data[3];
  const reader = await client();
  const { data: history } = await reader.api.GET('/api/v1/timeclock/events', {
    params: { query: { userId: one?.userId ?? '', from: start.toISODate() ?? '', to: DateTime.now().toISODate() ?? '' } },
  });
  assert.deepEqual(history?.data.map((event) => [event.sequence, event.type]), PUNCHES.map((type, i) => [i + 1, type]));
});

test('a 409 reaches the caller and does not hold up the person\'s later punches', async () => {
  const terminal = await client();
  const { data: badges } = await terminal.api.GET('/api/v1/timeclock/badges');
  const badgeId = badges?.data.find((badge) => badge.employeeNumber === 'E100')?.badgeId ?? '';
  const at = (minutesAgo: number) => DateTime.now().minus({ minutes: minutesAgo }).toISO() ?? '';

  const first = terminal.timeclock.send({ badgeId, type: 'clock_in', source: 'terminal', occurredAt: at(2) });
  const late = terminal.timeclock.send({ badgeId, type: 'break_start', source: 'terminal', occurredAt: at(40) });
  const next = terminal.timeclock.send({ badgeId, type: 'clock_out', source: 'terminal', occurredAt: at(1) });

  assert.equal((await first).type, 'clock_in');
  await assert.rejects(late, (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 409);
    assert.equal(error.code, 'out_of_order');
    return true;
  });
  const after = await next;
  assert.equal(after.type, 'clock_out');
  assert.equal(after.sequence, (await first).sequence + 1);
});
