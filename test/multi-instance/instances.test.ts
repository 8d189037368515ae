// Several stateless instances on one PostgreSQL database and one Redis (contract: identity and access, secured company API; issue 5):
// three real server processes, each request aimed at a chosen instance as a load balancer might
// send it. Every guarantee the contract gives for one process must hold across the three.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { signedInCompany } from '../support/company.ts';
import { runWfsJson, startCluster, type Cluster } from '../support/processes.ts';
import { needsPostgres, openSharedDatabase, type SharedDatabase } from '../support/shared-database.ts';
import { clockingStaff } from './staff.ts';
import { mintTokens, provisionTenant, type Tenant } from '../support/tenants.ts';
import { api, eventually, exchangeCode, jwtClaims, jwtHeader, logIn, renew, revoke, tokens } from './client.ts';

const TOKEN_BUDGET = 10;
const GRACE_SECONDS = 1;
const CONFIGURATION = '/api/v1/company/configuration';

interface TimeclockEvent {
  id: string;
  eventId: string;
  sequence: number;
  occurredAt: string;
  [field: string]: unknown;
}

/** Whole seconds, UTC: `occurredAt` as a terminal would send it. */
function instant(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

describe('three instances on one PostgreSQL database and one Redis', { skip: needsPostgres, concurrency: true }, () => {
  let shared: SharedDatabase;
  let cluster: Cluster;
  let urls: string[];
  let company: Tenant;
  let companyToken: string;
  const badgeUser = new Map<string, string>();

  /** A fresh API Client (its own rate-limit budget) in the shared company's organisation. */
  async function freshClient(): Promise<Tenant> {
    return provisionTenant(shared.ctx, { organisationId: company.organisationId, timezone: 'UTC', name: 'Client' });
  }

  async function sendEvent(url: string, event: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await api(url, companyToken, '/api/v1/timeclock/events', { method: 'POST', body: event });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function storedEvents(badgeId: string): Promise<TimeclockEvent[]> {
    const userId = badgeUser.get(badgeId) ?? '';
    const query = new URLSearchParams({ from: utcDate(Date.now() - 86_400_000), to: utcDate(Date.now()), userId, limit: '1000' });
    const response = await api(urls[0] ?? '', companyToken, `/api/v1/timeclock/events?${query.toString()}`);
    const page = (await response.json()) as { data: TimeclockEvent[]; nextCursor: string | null };
    assert.equal(response.status, 200, JSON.stringify(page));
    assert.equal(page.nextCursor, null);
    return page.data.toSorted((a, b) => a.sequence - b.sequence);
  }

  before(async () => {
    shared = await openSharedDatabase({
      instances: 3,
      env: {
        REDIS_URL: 'redis://127.0.0.1:6379',
        RATE_LIMIT_TOKEN_PER_MINUTE: String(TOKEN_BUDGET),
        REFRESH_GRACE_SECONDS: String(GRACE_SECONDS),
        RATE_LIMIT_API_PER_MINUTE: '100000',
        REVOCATION_REFRESH_MS: '200',
      },
    });
    ({ tenant: company, token: companyToken } = await signedInCompany(shared.ctx, { timezone: 'UTC', name: 'Shared', data: clockingStaff(['in-order', 'raced', 'copies']) }));

    cluster = await startCluster(shared.ports, shared.env);
    urls = cluster.instances.map((instance) => instance.url);
    const badges = await api(urls[0] ?? '', companyToken, '/api/v1/timeclock/badges');
    const { data } = (await badges.json()) as { data: Array<{ badgeId: string; userId: string }> };
    for (const badge of data) badgeUser.set(badge.badgeId, badge.userId);
  });

  after(async () => {
    await cluster?.stop();
    await shared?.close();
  });

  describe('identity', { concurrency: 1 }, () => {
    it('logs in on one instance, exchanges on a second, renews on a third; a replayed code is refused and its tokens die everywhere within 5 s', async () => {
      const [a = '', b = '', c = ''] = urls;
      const client = await freshClient();
      const redirect = await logIn(a, a, client);
      assert.equal(redirect.searchParams.get('iss'), `${cluster.baseUrl}/api/v1/iam`);
      const code = redirect.searchParams.get('code') ?? '';

      const issued = await tokens(await exchangeCode(b, client, code));
      assert.equal(jwtClaims(issued.id_token).iss, `${cluster.baseUrl}/api/v1/iam`);
      const renewed = await tokens(await renew(c, issued.refresh_token ?? ''));
      for (const url of urls) {
        for (const token of [issued.id_token, renewed.id_token]) assert.equal((await api(url, token, CONFIGURATION)).status, 200, url);
      }

      const replay = await exchangeCode(a, client, code);
      const refusedAt = Date.now();
      assert.equal(replay.status, 400);
      assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant');

      // The refresh token is refused at once (checked in the database), on any instance.
      const refresh = await renew(b, issued.refresh_token ?? '');
      assert.equal(refresh.status, 401);
      assert.equal(((await refresh.json()) as { error: string }).error, 'invalid_token');

      // The ID tokens, verified without a database query, within 5 s on every instance.
      await Promise.all(urls.flatMap((url) => [issued.id_token, renewed.id_token].map((token) =>
        eventually(`a token of the replayed code refused by ${url}`, 5000 - (Date.now() - refusedAt), async () => {
          const response = await api(url, token, CONFIGURATION);
          const body = (await response.json()) as { code?: string };
          return response.status === 401 && body.code === 'invalid_token';
        }))));
    });

    it('exchanges one code raced on three instances exactly once', async () => {
      const client = await freshClient();
      const code = (await logIn(urls[0] ?? '', urls[1] ?? '', client)).searchParams.get('code') ?? '';
      const answers = await Promise.all(urls.map(async (url) => {
        const response = await exchangeCode(url, client, code);
        return { status: response.status, body: (await response.json()) as { error?: string } };
      }));
      assert.deepEqual(answers.map((a) => a.status).toSorted(), [200, 400, 400]);
      for (const answer of answers.filter((a) => a.status === 400)) assert.equal(answer.body.error, 'invalid_grant');
    });

    it('penalises failed client authentications spread across the instances as one (Redis)', async () => {
      const client = await freshClient();
      const attempt = async (url: string) => {
        const response = await exchangeCode(url, { ...client, clientSecret: 'not-the-secret' }, 'no-such-code');
        return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { error?: string } };
      };
      // Five failures, never more than two on one instance: each instance alone would not penalise yet.
      for (let i = 0; i < 5; i += 1) {
        const failed = await attempt(urls[i % 3] ?? '');
        assert.equal(failed.status, 401);
        assert.equal(failed.body.error, 'invalid_client');
      }
      const blocked = await attempt(urls[2] ?? '');
      assert.equal(blocked.status, 429, JSON.stringify(blocked.body));
      assert.equal(blocked.retryAfter, '1');
    });

    it('revokes a grant on one instance for all: its refresh token fails at once elsewhere, its ID token within 5 s everywhere', async () => {
      const [a = '', b = ''] = urls;
      const client = await freshClient();
      const issued = await mintTokens(shared.ctx, client);
      for (const url of urls) assert.equal((await api(url, issued.id_token, CONFIGURATION)).status, 200);

      const revoked = await revoke(a, client, issued.refresh_token ?? '');
      const revokedAt = Date.now();
      assert.equal(revoked.status, 200, await revoked.text());
      assert.equal((await renew(b, issued.refresh_token ?? '')).status, 401);
      await Promise.all(urls.map((url) => eventually(`the revoked grant's ID token refused by ${url}`, 5000 - (Date.now() - revokedAt), async () =>
        (await api(url, issued.id_token, CONFIGURATION)).status === 401)));
    });

    it('detects a superseded refresh token reused on another instance and revokes the chain everywhere', async () => {
      const [a = '', b = '', c = ''] = urls;
      const client = await freshClient();
      // A refresh token with a 6 s lifetime: renewed after 3 s, still unexpired when reused after the grace.
      const first = await mintTokens({ ...shared.ctx, config: { ...shared.ctx.config, refreshTokenTtl: 6 } }, client);
      // Its life counts from its whole-second iat.
      await sleep(Math.max(0, (Number(jwtClaims(first.refresh_token ?? '').iat) + 3.1) * 1000 - Date.now()));
      const renewed = await tokens(await renew(a, first.refresh_token ?? ''));
      assert.ok(renewed.refresh_token, 'renewed: less than half its lifetime was left');

      await sleep((GRACE_SECONDS + 0.1) * 1000);
      const reuse = await renew(b, first.refresh_token ?? '');
      const reusedAt = Date.now();
      assert.equal(reuse.status, 401);
      assert.equal((await renew(c, renewed.refresh_token ?? '')).status, 401, 'the successor dies with the chain');
      await Promise.all(urls.map((url) => eventually(`the chain's ID token refused by ${url}`, 5000 - (Date.now() - reusedAt), async () =>
        (await api(url, renewed.id_token, CONFIGURATION)).status === 401)));
    });

    it('counts the token rate limit once for all instances (Redis), not once per instance', async () => {
      const client = await freshClient();
      const { refresh_token: refreshToken = '' } = await mintTokens(shared.ctx, client);
      // The budget is per calendar minute: start well inside one, so all requests count against it. Well
      // inside: fifteen renewals over three processes can take seconds on a loaded 2-core machine.
      const toNextMinute = 60_000 - (Date.now() % 60_000);
      if (toNextMinute < 20_000) await sleep(toNextMinute + 50);
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < TOKEN_BUDGET + 5; i += 1) {
        const response = await renew(urls[i % 3] ?? '', refreshToken);
        await response.body?.cancel();
        statuses.push(response.status);
        if (response.status === 429) retryAfter ??= response.headers.get('retry-after');
      }
      assert.deepEqual(statuses, [...Array.from({ length: TOKEN_BUDGET }, () => 200), 429, 429, 429, 429, 429]);
      assert.match(retryAfter ?? '', /^[1-9]\d*$/);

      // One client's limit never blocks another, on any instance.
      const other = (await mintTokens(shared.ctx, await freshClient())).refresh_token ?? '';
      for (const url of urls) assert.equal((await renew(url, other)).status, 200);
    });
  });

  describe('timeclock', { concurrency: 1 }, () => {
    it('gives one person\'s events, sent in order through all three instances, a gapless sequence', async () => {
      const start = Date.now() - 3 * 3_600_000;
      const sent: string[] = [];
      for (let i = 0; i < 9; i += 1) {
        const eventId = randomUUID();
        const answer = await sendEvent(urls[i % 3] ?? '', { eventId, badgeId: 'badge-in-order', type: i % 2 === 0 ? 'clock_in' : 'clock_out', occurredAt: instant(start + i * 60_000), source: 'terminal' });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.sequence, i + 1);
        assert.equal(answer.body.anomaly, null);
        sent.push(eventId);
      }
      const stored = await storedEvents('badge-in-order');
      assert.deepEqual(stored.map((e) => e.eventId), sent);
      assert.deepEqual(stored.map((e) => e.sequence), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('serialises one person\'s events raced across the instances: none lost, none stored twice, the sequence gapless', async () => {
      const start = Date.now() - 2 * 3_600_000;
      const events = Array.from({ length: 30 }, (_, i) => ({ eventId: randomUUID(), badgeId: 'badge-raced', type: i % 2 === 0 ? 'clock_in' : 'clock_out', occurredAt: instant(start + i * 60_000), source: 'mobile' }));
      const answers = await Promise.all(events.map((event, i) => sendEvent(urls[i % 3] ?? '', event)));

      const accepted = answers.filter((a) => a.status === 200).map((a) => a.body as TimeclockEvent);
      for (const refused of answers.filter((a) => a.status !== 200)) {
        assert.equal(refused.status, 409, JSON.stringify(refused.body));
        assert.equal(refused.body.code, 'out_of_order');
      }
      assert.ok(accepted.length >= 1);
      const stored = await storedEvents('badge-raced');
      assert.deepEqual(stored.map((e) => e.eventId).toSorted(), accepted.map((e) => e.eventId).toSorted(), 'stored exactly the accepted events');
      assert.deepEqual(stored.map((e) => e.sequence), stored.map((_, i) => i + 1), 'gapless');
      assert.deepEqual(accepted.map((e) => e.sequence).toSorted((x, y) => x - y), stored.map((e) => e.sequence), 'each answer names its stored sequence');
      const times = stored.map((e) => Date.parse(e.occurredAt));
      assert.deepEqual(times, times.toSorted((x, y) => x - y), 'sequence follows occurredAt');
    });

    it('stores one event raced as 30 copies across the instances once, answering every copy with the same 200', async () => {
      const event = { eventId: randomUUID(), badgeId: 'badge-copies', type: 'clock_in', occurredAt: instant(Date.now() - 3_600_000), source: 'terminal', deviceId: 'door-1' };
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => sendEvent(urls[i % 3] ?? '', event)));
      assert.deepEqual(answers.map((a) => a.status), Array.from({ length: 30 }, () => 200), JSON.stringify(answers.find((a) => a.status !== 200)));
      for (const answer of answers) assert.deepEqual(answer.body, answers[0]?.body);
      const stored = await storedEvents('badge-copies');
      assert.equal(stored.length, 1);
      assert.equal(stored[0]?.eventId, event.eventId);
      assert.equal(stored[0]?.sequence, 1);
    });
  });

  // Runs beside the two groups above: it mostly waits for every instance to reload its key set.
  it('rotates the signing key while the instances run: earlier tokens keep verifying everywhere, new tokens carry the new kid', async () => {
    const client = await freshClient();
    const { refresh_token: refreshToken = '' } = await mintTokens(shared.ctx, client);
    const earlier = await Promise.all(urls.map(async (url) => (await tokens(await renew(url, refreshToken))).id_token));
    const oldKid = jwtHeader(earlier[0] ?? '').kid;
    for (const token of earlier) assert.equal(jwtHeader(token).kid, oldKid);

    // 2 s, not 1: an instance learns of the key at its first reload (KEY_REFRESH_MS, 1 s) after the
    // rotation commits, and `activatesAt` counts from before that commit. With 1 s, an instance that
    // reloaded just before a commit slowed by load still signed with the old key 50 ms past activation.
    const rotated = await runWfsJson(['rotate-signing-key', '--activate-in', '2'], shared.env);
    assert.equal(rotated.code, 0, JSON.stringify(rotated.json) + rotated.stderr);
    const { kid: newKid, activatesAt } = rotated.json as { kid: string; activatesAt: string | number };
    assert.notEqual(newKid, oldKid);

    const jwks = async (url: string) => ((await (await fetch(`${url}/api/v1/iam/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
    // Every instance publishes the new key at once (the JWKS is read from the table), and signs with it from its activation.
    for (const url of urls) assert.ok((await jwks(url)).includes(newKid), `${url} publishes the new key at once`);
    const wait = new Date(activatesAt).getTime() - Date.now();
    if (wait > 0) await sleep(wait + 50);

    const later = await Promise.all(urls.map(async (url) => (await tokens(await renew(url, refreshToken))).id_token));
    for (const token of later) assert.equal(jwtHeader(token).kid, newKid);
    for (const url of urls) {
      assert.ok((await jwks(url)).includes(oldKid ?? ''), `${url} still publishes the retired key`);
      for (const token of [...earlier, ...later]) assert.equal((await api(url, token, CONFIGURATION)).status, 200, `${url} verifies kid ${jwtHeader(token).kid}`);
    }
  });
});
