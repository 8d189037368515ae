// A server started on a port that freePort() chose, and that someone else bound before the server
// did (freePort releases it first): started again on another port, not failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { migratedDatabase } from '../support/database.ts';
import { startInstance } from '../support/processes.ts';
import { onFreePort } from '../support/server.ts';

/** Binds `port` as another process may in the window between freePort() and the server's bind. */
async function takePort(port: number): Promise<Server> {
  // Connections (the start's readiness probes) are dropped, so that closing it waits for none.
  const taker = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => taker.listen(port, '127.0.0.1', resolve));
  return taker;
}

const closed = (server: Server) => new Promise((resolve) => server.close(resolve));
const listening = (server: Server, port: number) => new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, '127.0.0.1', resolve);
});

test('a listen that finds its port taken is tried again on another port', async () => {
  const taken: Server[] = [];
  const ports: number[] = [];
  const server = createServer();
  try {
    await onFreePort(async (port) => {
      ports.push(port);
      if (taken.length === 0) taken.push(await takePort(port));
      await listening(server, port);
    });
    assert.equal(ports.length, 2);
    assert.equal((server.address() as { port: number }).port, ports[1]);
  } finally {
    await Promise.all([server, ...taken].map(closed));
  }
});

test('a server process that finds its port taken is started again on another port', async () => {
  const database = await migratedDatabase();
  const taken: Server[] = [];
  try {
    const instance = await onFreePort(async (port) => {
      if (taken.length === 0) taken.push(await takePort(port));
      return startInstance({ env: { DATABASE_URL: database.url }, port });
    });
    try {
      assert.notEqual(new URL(instance.url).port, String((taken[0]?.address() as { port: number }).port));
      assert.equal((await fetch(`${instance.url}/readyz`)).status, 200);
    } finally {
      await instance.stop();
    }
  } finally {
    await Promise.all(taken.map(closed));
    await database.drop();
  }
});
