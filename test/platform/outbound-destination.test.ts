// The outbound check of tenant-chosen destinations (src/platform/outbound-destination.ts), resolving
// through a real DNS server on 127.0.0.1 (test/support/dns-server.ts): every address of a name must be
// public; a name that does not resolve and one that resolves to a private address are refused in the
// same words; `localhost` is loopback without asking DNS; names resolve with c-ares, so a busy libuv
// thread pool (scrypt logins, zlib) does not hold them up; the pinned lookup answers only what was checked.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pbkdf2 } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { DestinationRefused, dnsResolver, pinnedLookup, resolvePublic, type OutboundPolicy } from '../../src/platform/outbound-destination.ts';
import { startDnsServer, type DnsServer } from '../support/dns-server.ts';

describe('outbound destinations', () => {
  let dns: DnsServer;
  let strict: OutboundPolicy;

  before(async () => {
    dns = await startDnsServer({
      'hooks.example.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
      'db.internal.test': ['10.0.3.7'],
      'mixed.example.test': ['93.184.216.34', '169.254.169.254'],
    });
    strict = { allowInsecure: false, resolver: dnsResolver([dns.server]) };
  });
  after(() => dns.close());

  async function refusal(host: string, policy = strict): Promise<DestinationRefused> {
    const error = await resolvePublic(host, policy).then(() => undefined, (caught: unknown) => caught);
    assert.ok(error instanceof DestinationRefused, `${host}: ${String(error)}`);
    return error;
  }

  it('answers every address of a public name, both families', async () => {
    assert.deepEqual(await resolvePublic('hooks.example.test', strict), [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }]);
  });

  it('refuses a name with a private address, or with one among public ones, in the words of a name that does not resolve', async () => {
    const messages = await Promise.all(['db.internal.test', 'mixed.example.test', 'no-such-host.test'].map(async (host) => (await refusal(host)).message.replace(host, '<host>')));
    assert.deepEqual(messages, Array(3).fill('<host> does not resolve to a public address'));
    // The reason is the log's: which address, or that there is none.
    assert.match((await refusal('db.internal.test')).logDetail, /10\.0\.3\.7 \(private\)/);
    assert.match((await refusal('no-such-host.test')).logDetail, /does not resolve \(ENOTFOUND\)/);
  });

  it('takes localhost and names under it as loopback, with or without the trailing dot', async () => {
    for (const host of ['localhost', 'LOCALHOST.', 'api.localhost']) assert.equal((await refusal(host)).message, `${host} does not resolve to a public address`);
    assert.deepEqual((await resolvePublic('localhost', { ...strict, allowInsecure: true })).map((entry) => entry.address), ['127.0.0.1', '::1']);
  });

  it('names an address literal\'s range', async () => {
    assert.equal((await refusal('169.254.169.254')).message, '169.254.169.254 is a linkLocal address');
    assert.equal((await refusal('::ffff:127.0.0.1')).message, '::ffff:127.0.0.1 is a loopback address');
  });

  it('lets anything through when insecure destinations are allowed', async () => {
    assert.deepEqual(await resolvePublic('db.internal.test', { ...strict, allowInsecure: true }), [{ address: '10.0.3.7', family: 4 }]);
  });

  it('asks the OS resolver (/etc/hosts) for a name c-ares finds nothing for, under allowInsecure only', async () => {
    const asked: string[] = [];
    const insecureFallback = async (host: string) => {
      asked.push(host);
      return [{ address: '172.17.0.1', family: 4 }];
    };
    assert.deepEqual(await resolvePublic('host.docker.internal', { ...strict, allowInsecure: true, insecureFallback }), [{ address: '172.17.0.1', family: 4 }]);
    assert.equal((await refusal('host.docker.internal', { ...strict, insecureFallback })).message, 'host.docker.internal does not resolve to a public address');
    // A name c-ares answers is not asked again.
    await resolvePublic('db.internal.test', { ...strict, allowInsecure: true, insecureFallback });
    assert.deepEqual(asked, ['host.docker.internal']);
  });

  it('finds the machine\'s own name through the real OS resolver when the DNS server does not know it', async (t) => {
    const name = hostname();
    const fromOs = await lookup(name, { all: true }).catch(() => []);
    if (fromOs.length === 0) return t.skip(`${name} does not resolve through the OS here`);
    assert.deepEqual((await resolvePublic(name, { ...strict, allowInsecure: true })).map((entry) => entry.address).sort(), fromOs.map((entry) => entry.address).sort());
  });

  it('gives up when the caller\'s signal ends, with its reason, though the name server never answers', async () => {
    const silent = await startDnsServer({}, { silent: true });
    try {
      const started = performance.now();
      await assert.rejects(resolvePublic('hooks.silent.test', { allowInsecure: false, resolver: dnsResolver([silent.server]), signal: AbortSignal.timeout(200) }), { name: 'TimeoutError' });
      assert.ok(performance.now() - started < 1000);
    } finally {
      await silent.close();
    }
  });

  it('hands out a copy of the loopback addresses, not the shared list', async () => {
    const first = await resolvePublic('localhost', { ...strict, allowInsecure: true });
    first.length = 0;
    assert.equal((await resolvePublic('localhost', { ...strict, allowInsecure: true })).length, 2);
  });

  it('resolves while every thread of libuv\'s pool is busy (c-ares, not getaddrinfo)', async () => {
    const busy = Array.from({ length: 4 }, () => new Promise((resolve) => pbkdf2('secret', 'salt', 600_000, 32, 'sha256', resolve)));
    const started = performance.now();
    await resolvePublic('hooks.example.test', strict);
    const took = performance.now() - started;
    await Promise.all(busy);
    const poolTook = performance.now() - started;
    assert.ok(took < poolTook / 4, `resolved in ${took.toFixed(0)} ms while the pool took ${poolTook.toFixed(0)} ms`);
  });

  it('pins the lookup to the addresses checked, by family', async () => {
    const lookup = pinnedLookup([{ address: '93.184.216.34', family: 4 }]);
    const answered = await new Promise<string>((resolve, reject) => lookup('anything.example', { family: 0 }, (error, address) => (error ? reject(error) : resolve(address as string))));
    assert.equal(answered, '93.184.216.34');
    await assert.rejects(new Promise((resolve, reject) => lookup('anything.example', { family: 6 }, (error, address) => (error ? reject(error) : resolve(address)))), DestinationRefused);
  });
});
