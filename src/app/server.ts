// Entry point of `npm start`: configuration, database (migrated), demo data on an empty database,
// then listen. SIGTERM/SIGINT drain in-flight requests and close the database.
import { ConfigError, loadConfig, weakTokenWarnings, type Config } from '../platform/config.ts';
import { closeContext, createContext } from './bootstrap.ts';
import { buildApp } from './app.ts';
import { prettyLogs } from './pretty-logs.ts';
import { demoInstructions, framed, inviteDemoConsoleAdmin, seedDemoOnFirstStart } from '../demo/seed.ts';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const ctx = await createContext(config, {
    onBackgroundError: (error) => process.stderr.write(`background task failed: ${String(error)}\n`),
    onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
  });
  // Readable lines on a terminal; JSON lines (for the log collector) everywhere else.
  const app = await buildApp(ctx, process.stdout.isTTY ? { logger: { stream: prettyLogs() } } : {});
  if (!config.adminToken) app.log.info('ADMIN_TOKEN is unset: the operator API (/api/v1/admin) is off');
  for (const warning of weakTokenWarnings(config)) app.log.warn(warning);
  if (config.baseUrl.startsWith('http://') && !/^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:|$)/.test(config.baseUrl)) {
    app.log.warn('BASE_URL is plain http on a non-loopback host: tokens and secrets would cross the network unencrypted');
  }
  const demo = await seedDemoOnFirstStart(ctx.db, config);
  const invitation = demo ? await inviteDemoConsoleAdmin(ctx.db, config, demo) : undefined;

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining requests');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    // Keep-alive connections (a load balancer's) would hold close() open: close each one as soon as
    // its in-flight response is done.
    const idle = setInterval(() => app.server.closeIdleConnections(), 100);
    idle.unref();
    app.close()
      .then(() => closeContext(ctx))
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  if (demo) process.stdout.write(demoInstructions(config, demo, invitation));
  else {
    process.stdout.write(framed([
      `Listening on ${config.baseUrl}. Demo data already present (wfs seed-demo makes another).`,
      `Reference page: ${config.baseUrl}/docs    Console: ${config.authUrl}/console`,
    ]));
  }
}

await main();
