// Rate limits and failure penalties (contract: identity and access, "Rate limits"): per-client budgets at token, idToken
// and login; after 5 failures for one client from one address, 429 with a Retry-After doubling from
// 1 s up to 15 min, reset by a success; one client never blocks another. The counter store is tested
// in memory and against the real Redis, and two instances sharing Redis share the penalties.
import { test, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startTestServer, type TestServer, type TestServerOptions } from '../support/server.ts';
import { migratedDatabase } from '../support/database.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { setClientDisabled } from '../../src/iam/client-admin.ts';
import { OPERATOR } from '../../src/iam/audit.ts';
import { EVERY_ORGANISATION } from '../../src/iam/organisation-scope.ts';
import ipaddr from 'ipaddr.js';
import { FAILURE_WINDOW_MS, MemoryThrottleStore, RedisThrottleStore, Throttle, countedAddress, type ThrottleStore } from '../../src/iam/throttle.ts';
import { authorizeUrl, defaultParams, loginAndExchange, postToken, renewAtIdToken, submitLogin } from './helpers.ts';
import { codeExchange, openLoginForm } from '../support/login.ts';
import { ManualClock } from '../../src/platform/clock.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});
// Each test's servers close when it ends: a dozen kept to the end of the file held enough idle
// PostgreSQL connections, beside the other files of a parallel run, to exhaust max_connections.
const servers: TestServer[] = [];
afterEach(async () => {
  for (const started of servers.splice(0).reverse()) await started.close();
});

/** A server answering in process unless `options` say otherwise; closed when the test ends. */
async function server(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const started = await startTestServer(env, { inProcess: true, ...options });
  servers.push(started);
  return started;
}

/** A clock standing at the start of a calendar minute, so a burst of requests stays inside one budget window. */
function clockAtStartOfMinute(): ManualClock {
  return new ManualClock(Math.ceil(Date.now() / 60_000) * 60_000);
}

function statusCounts(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}

function assertRetryAfter(response: Response, min: number, max: number): void {
  assert.equal(response.status, 429);
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(retryAfter >= min && retryAfter <= max, `Retry-After ${retryAfter} not in [${min}, ${max}]`);
}

test('token, idToken and login requests are limited per client; another client is unaffected', async () => {
  const s = await server({ RATE_LIMIT_TOKEN_PER_MINUTE: '3' }, { clock: clockAtStartOfMinute() });
  const busy = await provisionTenant(s.ctx);
  const calm = await provisionTenant(s.ctx);
  for (const t of [busy, calm]) await setGrantEnabled(s.ctx.db, t.clientId, 'client_credentials', true);
  const credentials = (t: Tenant) => ({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret });

  for (let i = 0; i < 3; i++) assert.equal((await postToken(s, credentials(busy))).status, 200);
  const limited = await postToken(s, credentials(busy));
  assertRetryAfter(limited, 1, 60);
  const over = (await limited.json()) as { error: string; error_description: string };
  assert.equal(over.error, 'invalid_request');
  assert.match(over.error_description, /^Too many requests; retry after \d+ seconds?\.$/);
  assert.equal((await postToken(s, credentials(calm))).status, 200, 'another client keeps its budget');

  const tokens = await loginAndExchange(s, calm);
  for (let i = 0; i < 3; i++) assert.equal((await renewAtIdToken(s, tokens.refresh_token ?? '')).status, 200);
  assertRetryAfter(await renewAtIdToken(s, tokens.refresh_token ?? ''), 1, 60);

  const url = authorizeUrl(s, defaultParams(busy));
  for (let i = 0; i < 3; i++) assert.equal((await s.fetch(url)).status, 200);
  const page = await s.fetch(url);
  assertRetryAfter(page, 1, 60);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await page.text(), /Too many sign-in attempts/);
});

test('a stranger spending a client\'s login budget from one address does not block its user at another address', async () => {
  const s = await server({ RATE_LIMIT_TOKEN_PER_MINUTE: '60', TRUST_PROXY: '127.0.0.1' }, { clock: clockAtStartOfMinute() });
  const tenant = await provisionTenant(s.ctx);
  const url = authorizeUrl(s, defaultParams(tenant));
  const stranger = { 'x-forwarded-for': '203.0.113.66' };
  for (let i = 0; i < 60; i++) assert.equal((await s.fetch(url, { headers: stranger })).status, 200);
  assertRetryAfter(await s.fetch(url, { headers: stranger }), 1, 60);

  const user = { 'x-forwarded-for': '198.51.100.7' };
  const form = await openLoginForm(url, '', user);
  assert.equal(form.response.status, 200, 'the user at another address gets the login form');
  const login = await submitLogin(s, form, { email: tenant.email, secret: tenant.secret }, {}, user);
  assert.equal(login.status, 302, 'and can log in');
  assertRetryAfter(await submitLogin(s, await openLoginForm(url, '', user), { email: tenant.email, secret: 'wrong' }, {}, stranger), 1, 60);
});

for (const [store, env] of [['in memory', {}], ['in Redis', { REDIS_URL }]] as const) {
  test(`20 parallel wrong-secret logins with one form's CSRF pair: only 5 are checked, the rest 429 (${store})`, async () => {
    const s = await server(env, { clock: clockAtStartOfMinute() });
    const tenant = await provisionTenant(s.ctx);
    const form = await openLoginForm(authorizeUrl(s, defaultParams(tenant)));
    const answers = await Promise.all(Array.from({ length: 20 }, () => submitLogin(s, form, { email: tenant.email, secret: 'wrong' })));
    assert.deepEqual(statusCounts(answers), { 401: 5, 429: 15 });
    const checked = await s.ctx.db.selectFrom('audit_log').select('outcome').where('client_id', '=', tenant.clientId).where('outcome', '=', 'failure').execute();
    assert.equal(checked.length, 5, 'five secrets were checked');
  });

  test(`20 parallel wrong-secret client authentications: only 5 are checked, the rest 429 (${store})`, async () => {
    const s = await server(env, { clock: clockAtStartOfMinute() });
    const tenant = await provisionTenant(s.ctx);
    const bad = codeExchange(tenant, 'code', { client_secret: 'wrong' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => postToken(s, bad)));
    assert.deepEqual(statusCounts(answers), { 401: 5, 429: 15 });
  });

  test(`parallel first requests of a fresh client share one reserved check per secret: the right one passes for all, a wrong one counts for each (${store})`, async (t) => {
    // One server for the three bursts, closed at once: the bursts fill its pool of PostgreSQL connections.
    const s = await startTestServer(env, { inProcess: true, clock: clockAtStartOfMinute() });
    t.after(() => s.close());
    const fresh = async () => {
      const tenant = await provisionTenant(s.ctx);
      await setGrantEnabled(s.ctx.db, tenant.clientId, 'client_credentials', true);
      const right = { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret };
      return { tenant, right, wrong: { ...right, client_secret: 'wrong' } };
    };
    const burst = (bodies: Record<string, string>[]) => Promise.all(bodies.map((body) => postToken(s, body)));

    const a = await fresh();
    assert.deepEqual(statusCounts(await burst(Array.from({ length: 24 }, () => a.right))), { 200: 24 }, '24 first requests with the right secret');

    const b = await fresh();
    assert.deepEqual(statusCounts(await burst(Array.from({ length: 24 }, () => b.wrong))), { 401: 5, 429: 19 }, 'each request with the wrong secret counts');
    const audited = await s.ctx.db.selectFrom('audit_log').select('outcome').where('client_id', '=', b.tenant.clientId).where('event', '=', 'client_authentication').execute();
    assert.deepEqual(audited.map((row) => row.outcome).sort(), [...Array<string>(5).fill('failure'), ...Array<string>(19).fill('throttled')]);
    assertRetryAfter(await postToken(s, b.right), 1, 1);

    // Four wrong ones at most, a right one first: whatever the order of the checks, no penalty can be set.
    const c = await fresh();
    const mixed = Array.from({ length: 24 }, (_, i) => (i % 6 === 1 ? c.wrong : c.right));
    const answers = await burst(mixed);
    assert.deepEqual(answers.map((answer) => answer.status), mixed.map((body) => (body === c.right ? 200 : 401)), 'right and wrong secrets are never merged');
  });

  test(`a client's own parallel requests with its secret, once it passed, are never penalised (${store})`, async () => {
    const s = await server(env, { clock: clockAtStartOfMinute() });
    const tenant = await provisionTenant(s.ctx);
    await setGrantEnabled(s.ctx.db, tenant.clientId, 'client_credentials', true);
    const credentials = { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret };
    assert.equal((await postToken(s, credentials)).status, 200);
    const answers = await Promise.all(Array.from({ length: 30 }, () => postToken(s, credentials)));
    assert.deepEqual(statusCounts(answers), { 200: 30 });
  });
}

test('a secret that passed before and fails now (the client was disabled) counts as a failure, and a penalty blocks it too', async () => {
  const s = await server();
  const tenant = await provisionTenant(s.ctx);
  await setGrantEnabled(s.ctx.db, tenant.clientId, 'client_credentials', true);
  const credentials = { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret };
  assert.equal((await postToken(s, credentials)).status, 200);
  await setClientDisabled(s.ctx.db, EVERY_ORGANISATION, tenant.clientId, true, OPERATOR);
  for (let i = 0; i < 5; i++) assert.equal((await postToken(s, credentials)).status, 401);
  await setClientDisabled(s.ctx.db, EVERY_ORGANISATION, tenant.clientId, false, OPERATOR);
  assertRetryAfter(await postToken(s, credentials), 1, 1);
});

test('failed logins: from the sixth attempt 429 with Retry-After doubling from 1 s; a success resets; other clients unaffected', async () => {
  const clock = new ManualClock();
  const s = await server({}, { clock });
  const tenant = await provisionTenant(s.ctx);
  const other = await provisionTenant(s.ctx);
  const form = await openLoginForm(authorizeUrl(s, defaultParams(tenant)));
  const wrong = () => submitLogin(s, form, { email: tenant.email, secret: 'wrong' });
  for (let i = 0; i < 5; i++) assert.equal((await wrong()).status, 401);
  const blocked = await wrong();
  assertRetryAfter(blocked, 1, 1);
  assert.match(await blocked.text(), /Too many sign-in attempts/);
  assertRetryAfter(await submitLogin(s, form, { email: tenant.email, secret: tenant.secret }), 1, 1);

  const otherForm = await openLoginForm(authorizeUrl(s, defaultParams(other)));
  assert.equal((await submitLogin(s, otherForm, { email: other.email, secret: other.secret })).status, 302, 'one client never blocks another');

  clock.advance(1000);
  assert.equal((await wrong()).status, 401, 'allowed again after Retry-After');
  assertRetryAfter(await wrong(), 2, 2);
  clock.advance(2000);
  assert.equal((await submitLogin(s, form, { email: tenant.email, secret: tenant.secret })).status, 302);
  assert.equal((await wrong()).status, 401, 'the success reset the count');
  const audit = await s.ctx.db.selectFrom('audit_log').select('outcome').where('client_id', '=', tenant.clientId).where('outcome', '=', 'throttled').execute();
  assert.equal(audit.length, 3);
});

test('failed client authentications at the token endpoint are penalised per client and address', async () => {
  const s = await server();
  const tenant = await provisionTenant(s.ctx);
  const other = await provisionTenant(s.ctx);
  const bad = codeExchange(tenant, 'code', { client_secret: 'wrong' });
  for (let i = 0; i < 5; i++) assert.equal((await postToken(s, bad)).status, 401);
  const blocked = await postToken(s, codeExchange(tenant, 'code'));
  assertRetryAfter(blocked, 1, 1);
  assert.match(blocked.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(await blocked.json(), { error: 'invalid_request', error_description: 'Too many requests; retry after 1 second.' }, 'the body docs/identity.md and docs/errors.md describe');
  assert.equal((await postToken(s, codeExchange(other, 'code'))).status, 400, 'another client is not blocked (its bad code is just invalid_grant)');
});

test('an IPv6 client counts as its /64 (an IPv4-mapped address as its IPv4 one): rotating addresses does not escape the penalty or the login budget', async () => {
  const s = await server({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_TOKEN_PER_MINUTE: '5' }, { clock: clockAtStartOfMinute() });
  const tenant = await provisionTenant(s.ctx);
  const bad = codeExchange(tenant, 'code', { client_secret: 'wrong' });
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
  for (let i = 0; i < 5; i++) assert.equal((await postToken(s, bad, from(`2001:db8:1:2::${i + 1}`))).status, 401);
  assertRetryAfter(await postToken(s, bad, from('2001:db8:1:2:ffff:ffff:ffff:ffff')), 1, 1);
  assert.equal((await postToken(s, bad, from('2001:db8:1:3::1'))).status, 401, 'the next /64 is another address');
  for (let i = 0; i < 5; i++) assert.equal((await postToken(s, bad, from(i % 2 ? '203.0.113.5' : '::ffff:203.0.113.5'))).status, 401);
  assertRetryAfter(await postToken(s, bad, from('203.0.113.5')), 1, 1);

  const url = authorizeUrl(s, defaultParams(tenant));
  for (let i = 0; i < 5; i++) assert.equal((await s.fetch(url, { headers: from(`2001:db8:9:9::${i + 1}`).headers })).status, 200);
  assertRetryAfter(await s.fetch(url, { headers: from('2001:db8:9:9::99').headers }), 1, 60);
  assert.equal((await s.fetch(url, { headers: from('2001:db8:9:a::1').headers })).status, 200);
});

test('an IPv4 address counts as ipaddr.js prints it, whether written canonically or not', () => {
  const addresses = ['0.0.0.0', '9.99.199.255', '10.0.0.1', '127.0.0.1', '192.168.250.249', '255.255.255.255', '010.0.0.1', '0x7f.0.0.1', '127.1', '256.0.0.1', '1.2.3.4.5', ' 1.2.3.4'];
  for (const address of addresses) {
    const expected = ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
    assert.equal(countedAddress(address), expected, address);
  }
  assert.equal(countedAddress('::ffff:10.0.0.1'), '10.0.0.1');
});

test('a caller cannot escape the penalty by sending its own X-Forwarded-For (no TRUST_PROXY)', async () => {
  const s = await server();
  const tenant = await provisionTenant(s.ctx);
  const bad = codeExchange(tenant, 'code', { client_secret: 'wrong' });
  for (let i = 0; i < 5; i++) assert.equal((await postToken(s, bad, { headers: { 'x-forwarded-for': `203.0.113.${i}` } })).status, 401);
  assertRetryAfter(await postToken(s, bad, { headers: { 'x-forwarded-for': '198.51.100.7' } }), 1, 1);
  const addresses = await s.ctx.db.selectFrom('audit_log').select('address').distinct().where('client_id', '=', tenant.clientId).where('address', 'is not', null).execute();
  assert.deepEqual(addresses.map((row) => row.address), ['127.0.0.1'], 'the audit log records the peer, not the header');
});

test('behind a trusted proxy (TRUST_PROXY) each forwarded client address is penalised on its own', async () => {
  const s = await server({ TRUST_PROXY: '127.0.0.1' });
  const tenant = await provisionTenant(s.ctx);
  const bad = codeExchange(tenant, 'code', { client_secret: 'wrong' });
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
  for (let i = 0; i < 5; i++) assert.equal((await postToken(s, bad, from('203.0.113.9'))).status, 401);
  assertRetryAfter(await postToken(s, bad, from('203.0.113.9')), 1, 1);
  assert.equal((await postToken(s, bad, from('198.51.100.7'))).status, 401, 'another address behind the proxy is not blocked');
  const audit = await s.ctx.db.selectFrom('audit_log').select('address').distinct().where('client_id', '=', tenant.clientId).where('address', 'is not', null).orderBy('address').execute();
  assert.deepEqual(audit.map((row) => row.address), ['198.51.100.7', '203.0.113.9']);
});

function storeContract(name: string, makeStore: () => Promise<ThrottleStore>): void {
  test(`${name}: counts requests per window; reserves attempts, penalising from the fifth; a reset forgets them`, async () => {
    const store = await makeStore();
    const now = Date.now();
    assert.equal(await store.countRequest('w1', 60_000, now), 1);
    assert.equal(await store.countRequest('w1', 60_000, now), 2);
    assert.equal(await store.countRequest('w2', 60_000, now), 1);
    for (let i = 0; i < 5; i++) assert.equal(await store.reserveAttempt('k', now), undefined, `attempt ${i + 1} goes ahead`);
    assert.equal(await store.reserveAttempt('k', now), now + 1000, 'the fifth attempt set a 1 s penalty');
    assert.equal(await store.reserveAttempt('other', now), undefined, 'keys are apart');
    await store.reset('k');
    assert.equal(await store.reserveAttempt('k', now), undefined, 'a reset forgets failures and penalty');
  });

  test(`${name}: a key may be given its own number of failures before the penalty`, async () => {
    const store = await makeStore();
    const now = Date.now();
    for (let i = 0; i < 50; i++) assert.equal(await store.reserveAttempt('address', now, 50), undefined, `attempt ${i + 1} goes ahead`);
    assert.equal(await store.reserveAttempt('address', now, 50), now + 1000, 'the fiftieth attempt set a 1 s penalty');
  });

  test(`${name}: failures count in a sliding 15-minute window`, async () => {
    const store = await makeStore();
    const start = Date.now();
    for (let i = 0; i < 4; i++) assert.equal(await store.reserveAttempt('k', start), undefined);
    const later = start + FAILURE_WINDOW_MS;
    assert.equal(await store.reserveAttempt('k', later), undefined, 'the four old failures left the window');
    assert.equal(await store.reserveAttempt('k', later), undefined, 'so this is only the second');
  });

  test(`${name}: the Throttle doubles the penalty from 1 s up to 15 minutes`, async () => {
    const clock = new ManualClock();
    const throttle = new Throttle(await makeStore(), { perMinute: 100, clock, onError: (error) => assert.fail(String(error)) });
    for (let i = 0; i < 4; i++) assert.equal(await throttle.attempt('cli', 'addr'), undefined, 'four failures are free');
    const seen: number[] = [];
    for (let i = 0; i < 13; i++) {
      assert.equal(await throttle.attempt('cli', 'addr'), undefined, 'free again once Retry-After has passed');
      const verdict = await throttle.attempt('cli', 'addr');
      seen.push(verdict?.retryAfter ?? 0);
      clock.advance((verdict?.retryAfter ?? 0) * 1000);
    }
    assert.deepEqual(seen, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
    assert.equal(await throttle.attempt('cli', 'other-address'), undefined);
    assert.equal(await throttle.attempt('other-client', 'addr'), undefined);
    await throttle.attempt('cli', 'addr');
    await throttle.succeeded('cli', 'addr');
    for (let i = 0; i < 4; i++) assert.equal(await throttle.attempt('cli', 'addr'), undefined, 'a success resets');
  });
}

storeContract('memory store', async () => new MemoryThrottleStore());

storeContract('Redis store', async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const prefix = `wfs-test:${randomBytes(6).toString('hex')}:`;
  cleanups.push(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  return new RedisThrottleStore(redis, prefix);
});

test('the memory store stays within its bound under a flood of made-up client ids, and keeps the penalties in force', async () => {
  const store = new MemoryThrottleStore(1000);
  const clock = new ManualClock();
  const throttle = new Throttle(store, { perMinute: 100, clock, onError: (error) => assert.fail(String(error)) });
  for (let i = 0; i < 5; i++) await throttle.attempt('victim', 'attacker');
  for (let i = 0; i < 20_000; i++) {
    const clientId = `cli_${randomBytes(8).toString('hex')}`;
    await throttle.attempt(clientId, '203.0.113.1');
    await throttle.limit('token', clientId);
    assert.ok(store.size <= 3 * 1000, `${store.size} entries after ${i + 1} made-up clients`);
  }
  assert.ok((await throttle.attempt('victim', 'attacker'))?.retryAfter, 'the penalty in force survived the flood');
});

test('two instances sharing Redis share the penalties', async () => {
  const database = await migratedDatabase();
  cleanups.push(() => database.drop());
  // Two instances as deployed: each on its own port.
  const a = await server({ DATABASE_URL: database.url, REDIS_URL }, { inProcess: false });
  const b = await server({ DATABASE_URL: database.url, REDIS_URL }, { inProcess: false });
  await sleep(100);
  const tenant = await provisionTenant(a.ctx);
  const bad = codeExchange(tenant, 'code', { client_secret: 'wrong' });
  for (let i = 0; i < 5; i++) assert.equal((await postToken(a, bad)).status, 401);
  assertRetryAfter(await postToken(b, bad), 1, 1);
});
