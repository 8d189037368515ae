// The fetch every call to an SSO provider goes through (src/sso/outbound.ts), against real servers on
// 127.0.0.1: its total time cap holds even when the caller passes a longer signal of its own, as
// openid-client does (30 s), and an answer that drips in slowly is cut at the cap. Without
// SSO_ALLOW_INSECURE, a host name resolving (through a real DNS server) to a private address is
// refused as a name that does not resolve is, and localhost by name.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, OutboundRefused, OutboundTimeout } from '../../src/sso/outbound.ts';
import { discoveryProblem } from '../../src/sso/discovery-failure.ts';
import { dnsResolver } from '../../src/platform/outbound-destination.ts';
import { startDnsServer, type DnsServer } from '../support/dns-server.ts';

const CAP_MS = 800;

describe('the SSO outbound fetch: total time', () => {
  let server: Server;
  let origin: string;

  before(async () => {
    // A discovery document written one space every 250 ms: never idle long enough for a socket timeout.
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      let spaces = 0;
      const timer = setInterval(() => {
        response.write(' ');
        spaces += 1;
        if (spaces === 12) {
          clearInterval(timer);
          response.end('{}');
        }
      }, 250);
      response.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses an answer slower than the cap although the caller\'s own signal allows 30 s', async () => {
    const started = performance.now();
    await assert.rejects(guardedFetch(true, { timeoutMs: CAP_MS })(`${origin}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(30_000) }), OutboundTimeout);
    const took = performance.now() - started;
    assert.ok(took >= CAP_MS - 20 && took < CAP_MS + 1000, `gave up after ${took} ms`);
  });

  it('counts resolving the name within the cap, and the caller\'s signal ends it too', async () => {
    const silent = await startDnsServer({}, { silent: true });
    try {
      const fetcher = guardedFetch(false, { timeoutMs: 300, resolver: dnsResolver([silent.server]) });
      let started = performance.now();
      await assert.rejects(fetcher('https://idp.silent.test/.well-known/openid-configuration'), OutboundTimeout);
      assert.ok(performance.now() - started < 1000, `gave up after ${performance.now() - started} ms`);
      const slowCap = guardedFetch(false, { timeoutMs: 10_000, resolver: dnsResolver([silent.server]) });
      started = performance.now();
      await assert.rejects(slowCap('https://idp.silent.test/.well-known/openid-configuration', { signal: AbortSignal.timeout(300) }), { name: 'TimeoutError' });
      assert.ok(performance.now() - started < 1000, `gave up after ${performance.now() - started} ms`);
    } finally {
      await silent.close();
    }
  });

  it('still ends sooner when the caller\'s signal does', async () => {
    const started = performance.now();
    await assert.rejects(guardedFetch(true, { timeoutMs: 10_000 })(`${origin}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(300) }));
    assert.ok(performance.now() - started < 2000);
  });
});

describe('the SSO outbound fetch: destinations', () => {
  let dns: DnsServer;
  before(async () => {
    dns = await startDnsServer({ 'idp.internal.test': ['10.0.3.7'], 'idp.mixed.test': ['93.184.216.34', '127.0.0.1'] });
  });
  after(() => dns.close());

  async function refused(url: string): Promise<OutboundRefused> {
    const error = await guardedFetch(false, { resolver: dnsResolver([dns.server]) })(url).then(() => undefined, (caught: unknown) => caught);
    assert.ok(error instanceof OutboundRefused, `${url}: ${String(error)}`);
    return error;
  }

  it('refuses a host name that resolves to a private address, or to one among public ones, as it refuses one that does not resolve', async () => {
    for (const host of ['idp.internal.test', 'idp.mixed.test', 'no-such-idp.test', 'localhost', 'localhost.']) {
      const error = await refused(`https://${host}/.well-known/openid-configuration`);
      assert.equal(discoveryProblem(error).category, 'refused_destination', host);
    }
    // The operator's detail says why.
    assert.match((await refused('https://idp.internal.test/')).message, /10\.0\.3\.7/);
  });
});
