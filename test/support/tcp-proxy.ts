// A tiny in-process TCP proxy for fault tests: the application connects to the proxy instead of its
// real peer (PostgreSQL, Redis), and the test cuts and restores the link. Cutting resets every open
// connection and every new attempt, as a crashed or restarted database server would, while the real
// server (shared with other test suites) keeps running untouched.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Whether the link is currently cut. */
  readonly isCut: boolean;
  /** Resets every open connection and refuses new ones until `restore()`. */
  cut(): void;
  /** Lets connections through again. */
  restore(): void;
  close(): Promise<void>;
}

export interface ProxyTarget {
  host: string;
  port: number;
}

function reset(socket: Socket): void {
  // A TCP RST (not a polite FIN): the peer sees ECONNRESET, as when the server process dies.
  if (!socket.destroyed) socket.resetAndDestroy();
}

export async function startTcpProxy(target: ProxyTarget): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let cut = false;

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    if (cut) {
      reset(client);
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      // Errors end the pair; the other side is reset so neither end waits on a dead half.
      socket.on('error', () => {
        reset(client);
        reset(upstream);
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('TCP proxy did not get a port');

  return {
    port: address.port,
    get isCut() {
      return cut;
    },
    cut() {
      cut = true;
      for (const socket of open) reset(socket);
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const socket of open) reset(socket);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
