// A tiny in-process TCP proxy for fault tests: the application connects to the proxy instead of its
// real peer (PostgreSQL, Redis), and the test cuts and restores the link while the real server
// (shared with other test suites) keeps running untouched. Two kinds of cut:
// - 'reset': every open connection and every new attempt is reset, as when the server process dies
//   or restarts;
// - 'blackhole': nothing passes and nothing is answered, as in a network partition; connections
//   opened meanwhile wait, and everything flows again on restore.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Whether the link is currently cut. */
  readonly isCut: boolean;
  /** Cuts the link until `restore()` (default 'reset'). */
  cut(mode?: CutMode): void;
  /** Lets connections through again. */
  restore(): void;
  close(): Promise<void>;
}

export type CutMode = 'reset' | 'blackhole';

export interface ProxyTarget {
  host: string;
  port: number;
}

function reset(socket: Socket): void {
  // A TCP RST (not a polite FIN): the peer sees ECONNRESET, as when the server process dies.
  if (!socket.destroyed) socket.resetAndDestroy();
}

interface Link {
  client: Socket;
  upstream: Socket;
}

function flow(link: Link): void {
  link.client.pipe(link.upstream);
  link.upstream.pipe(link.client);
  link.client.resume();
  link.upstream.resume();
}

function hold(link: Link): void {
  link.client.unpipe(link.upstream);
  link.upstream.unpipe(link.client);
  link.client.pause();
  link.upstream.pause();
}

export async function startTcpProxy(target: ProxyTarget): Promise<TcpProxy> {
  const links = new Set<Link>();
  /** Clients that connected during a blackhole: their upstream is opened on restore. */
  const waiting = new Set<Socket>();
  let cut: CutMode | undefined;

  const link = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    links.add(pair);
    for (const socket of [client, upstream]) {
      // An error or close ends the pair; the other side is reset so neither end waits on a dead half.
      socket.on('error', () => {
        reset(client);
        reset(upstream);
      });
      socket.on('close', () => {
        links.delete(pair);
        reset(client === socket ? upstream : client);
      });
    }
    flow(pair);
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    if (cut === 'reset') reset(client);
    else if (cut === 'blackhole') {
      waiting.add(client);
      client.on('error', () => reset(client));
      client.on('close', () => waiting.delete(client));
    } else link(client);
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
      return cut !== undefined;
    },
    cut(mode = 'reset') {
      cut = mode;
      for (const pair of links) {
        if (mode === 'reset') {
          reset(pair.client);
          reset(pair.upstream);
        } else hold(pair);
      }
    },
    restore() {
      const was = cut;
      cut = undefined;
      if (was !== 'blackhole') return;
      for (const pair of links) flow(pair);
      for (const client of waiting) link(client);
      waiting.clear();
    },
    async close() {
      for (const socket of [...waiting, ...[...links].flatMap((pair) => [pair.client, pair.upstream])]) reset(socket);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
