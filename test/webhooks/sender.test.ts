// One webhook attempt against a real receiver on 127.0.0.1: the status decides it, and the answer's
// body is read only up to MAX_ANSWER_BYTES and only until WEBHOOK_TIMEOUT_MS: a receiver that streams
// an endless body, or drips one, has its connection ended; a short answer leaves the socket kept alive.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Sender } from '../../src/webhooks/sender.ts';
import { dnsResolver } from '../../src/platform/outbound-destination.ts';
import { startDnsServer } from '../support/dns-server.ts';

const TIMEOUT_MS = 500;

interface Answering {
  url: string;
  /** Bytes of body the receiver managed to write. */
  written(): number;
  /** Whether the connection of the latest request has closed. */
  closed(): boolean;
  /** Sockets the receiver accepted. */
  sockets(): number;
  close(): Promise<void>;
}

/** A receiver answering 200 and then writing its body with `write`. */
async function receiver(write: (res: ServerResponse, count: (bytes: number) => void) => void): Promise<Answering> {
  let written = 0;
  let closed = false;
  let sockets = 0;
  const server: Server = createServer((req, res) => {
    closed = false;
    req.resume();
    req.on('end', () => {
      res.on('close', () => { closed = true; });
      res.writeHead(200, { 'content-type': 'text/plain' });
      write(res, (bytes) => { written += bytes; });
    });
  });
  server.on('connection', (_socket: Socket) => { sockets += 1; });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    written: () => written,
    closed: () => closed,
    sockets: () => sockets,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook sender: the answer\'s body', () => {
  const sender = new Sender();
  const receivers: Answering[] = [];
  const attempt = (url: string) => sender.attempt({ url, headers: {}, body: '{}', timeoutMs: TIMEOUT_MS, policy: { allowInsecure: true } });

  after(async () => {
    sender.close();
    for (const answering of receivers) await answering.close();
  });

  it('stops reading an endless body after a few KiB and ends the connection', async () => {
    const chunk = Buffer.alloc(64 * 1024, 120);
    const endless = await receiver((res, count) => {
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) count(chunk.length);
      };
      res.on('drain', pump);
      pump();
    });
    receivers.push(endless);
    const outcome = await attempt(endless.url);
    assert.equal(outcome.statusCode, 200);
    assert.equal(outcome.error, null);
    await sleep(TIMEOUT_MS * 3);
    assert.ok(endless.closed(), 'the sender ended the connection');
    const after = endless.written();
    await sleep(200);
    assert.equal(endless.written(), after, 'nothing more is read');
    // What the kernel's buffers took before the cap was seen, not a body read for ever.
    assert.ok(after < 32 * 1024 * 1024, `${after} bytes written`);
  });

  it('ends a connection whose body is still dripping at the deadline', async () => {
    const drip = await receiver((res) => {
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    receivers.push(drip);
    const started = performance.now();
    const outcome = await attempt(drip.url);
    assert.equal(outcome.statusCode, 200);
    while (!drip.closed() && performance.now() - started < TIMEOUT_MS * 6) await sleep(20);
    assert.ok(drip.closed(), 'the connection ended');
    const closedAfter = performance.now() - started;
    assert.ok(closedAfter >= TIMEOUT_MS - 20 && closedAfter < TIMEOUT_MS * 4, `closed after ${closedAfter} ms`);
  });

  it('keeps the socket of a short answer read to its end for the next attempt', async () => {
    const short = await receiver((res) => res.end('x'.repeat(1000)));
    receivers.push(short);
    assert.equal((await attempt(short.url)).statusCode, 200);
    await sleep(50);
    assert.equal((await attempt(short.url)).statusCode, 200);
    assert.equal(short.sockets(), 1);
  });
});

describe('webhook sender: the deadline', () => {
  it('covers resolving the name: a name server that never answers ends the attempt at WEBHOOK_TIMEOUT_MS', async () => {
    const silent = await startDnsServer({}, { silent: true });
    const sender = new Sender();
    try {
      const policy = { allowInsecure: false, resolver: dnsResolver([silent.server]) };
      const outcome = await sender.attempt({ url: 'https://hooks.silent.test/hook', headers: {}, body: '{}', timeoutMs: 300, policy });
      assert.equal(outcome.error, 'no answer within 300 ms');
      assert.ok(outcome.durationMs < 1000, `ended after ${outcome.durationMs} ms`);
    } finally {
      sender.close();
      await silent.close();
    }
  });
});
