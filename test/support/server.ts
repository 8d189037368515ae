// Starts the real application over a fresh (already migrated) database, as a test's fixture: on a
// real port, or in process (`inProcess`: built and ready, answering `server.fetch` through
// `app.inject()`, no socket) for the tests that are not about the socket, a browser or a process.
import { createServer } from 'node:net';
import type { Writable } from 'node:stream';
import { after, before } from 'node:test';
import { loadConfig, type Config } from '../../src/platform/config.ts';
import { closeContext, createContext } from '../../src/app/bootstrap.ts';
import type { AppContext } from '../../src/app/context.ts';
import { buildApp, type BuildOptions } from '../../src/app/app.ts';
import type { App } from '../../src/platform/http.ts';
import { migratedDatabase, TEST_PASSWORD_HASH_COST } from './database.ts';
import { answeredInProcess, fetchAny, serveInProcess } from './in-process.ts';
import type { Clock } from '../../src/platform/clock.ts';

export interface TestServer {
  /** The server's BASE_URL (http://localhost:<port>); in process no socket listens on it. */
  baseUrl: string;
  config: Config;
  ctx: AppContext;
  app: App;
  /** `fetch` for this server's URLs (and any other): through `app.inject()` in process, else over the network. */
  fetch: typeof fetch;
  close(): Promise<void>;
}

export interface TestServerOptions {
  logStream?: Writable;
  clock?: Clock;
  /** Answer in process through `app.inject()` instead of listening on a port. */
  inProcess?: boolean;
  /** The app's cached-answer lane: off, or on with a listener told of each answer (BuildOptions). */
  cachedAnswerLane?: BuildOptions['cachedAnswerLane'];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `error` says the port was taken (a listen's own error, or a child's that said so). */
export const addressInUse = (error: unknown) => (error as { code?: unknown } | undefined)?.code === 'EADDRINUSE';

/**
 * `start(port)` on a free port. freePort() releases the port before the server binds it, and in
 * that window another process (a parallel suite's server, or any outgoing connection, whose local
 * port comes from the same range) may take it: a start that fails with EADDRINUSE is tried again on
 * another port, up to `attempts` times.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (error) {
      if (attempt >= attempts || !addressInUse(error)) throw error;
    }
  }
}

/** `env` overrides configuration variables (contract: addresses and configuration), e.g. `{ AUTH_CODE_TTL: '1' }`. */
export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const database = env.DATABASE_URL ? undefined : await migratedDatabase();
  try {
    const serving = options.inProcess ? await serveOn(await inProcessPort(), env, options, database?.url) : await onFreePort((port) => serveOn(port, env, options, database?.url));
    return {
      ...serving,
      close: async () => {
        await serving.close();
        await database?.drop();
      },
    };
  } catch (error) {
    await database?.drop();
    throw error;
  }
}

/** In process the port only names the server (BASE_URL): one no socket and no other app here answers. */
async function inProcessPort(): Promise<number> {
  let port = await freePort();
  while (answeredInProcess(`http://localhost:${port}`)) port = await freePort();
  return port;
}

/** The app on `port`, listening or in process; on a failure to listen, closed again. */
async function serveOn(port: number, env: Record<string, string>, options: TestServerOptions, databaseUrl: string | undefined): Promise<TestServer> {
  const config = loadConfig({
    RATE_LIMIT_TOKEN_PER_MINUTE: '100000',
    RATE_LIMIT_API_PER_MINUTE: '100000',
    REVOCATION_REFRESH_MS: '200',
    PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
    ...env,
    PORT: String(port),
    DATABASE_URL: env.DATABASE_URL ?? databaseUrl ?? '',
  });
  const ctx = await createContext(config, { clock: options.clock });
  const app = await buildApp(ctx, { logger: options.logStream ? { stream: options.logStream } : false, cachedAnswerLane: options.cachedAnswerLane });
  let stopServing: (() => void) | undefined;
  try {
    if (options.inProcess) {
      await app.ready();
      stopServing = serveInProcess(app, [config.baseUrl, config.authUrl]);
    } else {
      await app.listen({ port, host: '127.0.0.1' });
    }
  } catch (error) {
    await app.close();
    await closeContext(ctx);
    throw error;
  }
  return {
    baseUrl: config.baseUrl,
    config,
    ctx,
    app,
    fetch: fetchAny,
    close: async () => {
      stopServing?.();
      await app.close();
      await closeContext(ctx);
    },
  };
}

/** `startTestServer(env, options)` as the calling file's (or suite's) fixture: started before its tests, closed after them. */
export function useTestServer(env: Record<string, string> = {}, options: Omit<TestServerOptions, 'logStream'> = {}): TestServer {
  const server = {} as TestServer;
  before(async () => {
    Object.assign(server, await startTestServer(env, options));
  });
  after(() => server.close?.());
  return server;
}
