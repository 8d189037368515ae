// Builds the run-time context from configuration: opens the database, migrates it, makes sure a
// signing key exists (sealed) and that every published one unseals, loads the revocation list and
// connects Redis when configured.
import { Redis } from 'ioredis';
import type { Config } from '../platform/config.ts';
import { systemClock, type Clock } from '../platform/clock.ts';
import type { AppContext } from './context.ts';
import { createDatabase, dialectOf, sqliteHandleOf } from '../platform/db/database.ts';
import { migrateToLatest } from '../platform/db/migrate.ts';
import { ensureSigningKey } from '../iam/keys.ts';
import { KeyRing } from '../iam/key-ring.ts';
import { RevocationList } from '../iam/revocations.ts';
import { useUserSecretCost } from '../iam/secrets.ts';
import { sharedSecret } from '../platform/db/shared-secret.ts';
import { loadSecretBox } from '../sso/secrets-key.ts';
import { ResponseCache } from '../platform/response-cache.ts';
import { CompanyCache } from '../tenancy/company-cache.ts';
import { Metrics } from '../platform/metrics.ts';
import { ChangeNotifier, useNotifier } from '../changes/notifier.ts';
import { ChangeRetention } from '../changes/retention.ts';

const RESPONSE_CACHE_BYTES = 64 * 1024 * 1024;
/** How often the SQLite write-ahead log is copied back into the database, off the event loop. */
const CHECKPOINT_INTERVAL_MS = 250;

export interface ContextOptions {
  /** Start the background polls of revocations and signing keys (servers do; one-shot CLI commands do not). */
  poll?: boolean;
  onBackgroundError?: (error: unknown) => void;
  onWarning?: (message: string) => void;
  /** The clock the context hands to every feature (tests pass a ManualClock). */
  clock?: Clock;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  useUserSecretCost(config.passwordHashCost);
  const db = createDatabase(config.databaseUrl, { poolSize: config.dbPoolSize, statementTimeoutMs: config.dbStatementTimeoutMs });
  await migrateToLatest(db, (names) =>
    options.onWarning?.(`the database has migrations this release does not know (${names.join(', ')}); serving without migrating`),
  );
  const clock = options.clock ?? systemClock;
  const box = await loadSecretBox(db, config, (message) => options.onWarning?.(message));
  await ensureSigningKey(db, box, clock.now());
  const keys = new KeyRing(db, box, config.keyRefreshMs, clock);
  // Unseals every published key now: a SECRETS_KEY that does not open them stops start-up here.
  await keys.reload();
  sqliteHandleOf(db)?.checkpointInBackground(CHECKPOINT_INTERVAL_MS, (message) => options.onBackgroundError?.(new Error(`SQLite checkpoint failed: ${message}`)));
  const revocations = new RevocationList(db, clock, (config.accessTokenTtl + config.clockSkewSeconds) * 1000);
  await revocations.refresh();
  if (options.poll !== false) {
    revocations.start(config.revocationRefreshMs, options.onBackgroundError ?? (() => {}));
    keys.start(options.onBackgroundError ?? (() => {}));
  }
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, options.onBackgroundError ?? (() => {})) : undefined;
  const cursorKey = Buffer.from(await sharedSecret(db, 'cursor_hmac'), 'base64url');
  const changeNotifier = new ChangeNotifier(db, dialectOf(config.databaseUrl) === 'postgres' ? config.databaseUrl : undefined);
  useNotifier(db, changeNotifier);
  const changeRetention = new ChangeRetention(db, clock, config.changesRetentionSeconds);
  if (options.poll !== false) {
    await changeNotifier.listen(options.onBackgroundError ?? (() => {}));
    changeRetention.start(options.onBackgroundError ?? (() => {}));
  }
  return { config, clock, changeNotifier, changeRetention, db, dialect: dialectOf(config.databaseUrl), keys, revocations, redis, cursorKey, responseCache: new ResponseCache(RESPONSE_CACHE_BYTES), companies: new CompanyCache(db, clock), metrics: new Metrics({ db, exposed: config.metricsToken !== undefined }) };
}

/** How long start-up waits for Redis before serving without it (readiness then says it is down). */
const REDIS_READY_WAIT_MS = 5_000;

/**
 * Rate limits and penalties fail open while Redis cannot be reached; a server that served before its
 * connection was up would let its first requests through uncounted (seen: 20 parallel wrong secrets
 * right after start-up all checked). So start-up waits for the connection, for a bounded time.
 */
async function connectRedis(url: string, onError: (error: Error) => void): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  redis.on('error', onError);
  await new Promise<void>((resolve) => {
    const waited = setTimeout(resolve, REDIS_READY_WAIT_MS);
    redis.once('ready', () => {
      clearTimeout(waited);
      resolve();
    });
  });
  return redis;
}

export async function closeContext(ctx: AppContext): Promise<void> {
  ctx.revocations.stop();
  ctx.keys.stop();
  await ctx.changeRetention.stop();
  await ctx.changeNotifier.close();
  ctx.redis?.disconnect();
  await ctx.db.destroy();
}
