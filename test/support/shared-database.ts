// What the multi-instance suites share: a fresh database that separate server processes use, the
// ports they will listen on (BASE_URL, and so the issuer, names the first), and the test's own
// handle on that database for provisioning and for minting tokens. The database is migrated before
// any instance starts.
import { loadConfig } from '../../src/platform/config.ts';
import { closeContext, createContext } from '../../src/app/bootstrap.ts';
import type { AppContext } from '../../src/app/context.ts';
import { migratedDatabase, testDialect, type FreshDatabase } from './database.ts';
import { freePorts } from './processes.ts';

/** For `describe(…, { skip: needsPostgres })`: several processes on one database need PostgreSQL. */
export const needsPostgres = testDialect === 'postgres' ? false : 'needs PostgreSQL (run with WFS_TEST_DATABASE=postgres)';

export interface SharedDatabase {
  database: FreshDatabase;
  /** The test's own handle: migrated, and not polling for revocations. */
  ctx: AppContext;
  /** One free port per instance, chosen in advance. */
  ports: number[];
  /** For the instances: DATABASE_URL, BASE_URL (the first port) and the variables given. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface SharedDatabaseOptions {
  instances?: number;
  /** Configuration variables for the instances and the handle. */
  env?: Record<string, string>;
  /** Overrides for the handle only (e.g. no REDIS_URL where the test cuts Redis). */
  handleEnv?: Record<string, string>;
}

export async function openSharedDatabase(options: SharedDatabaseOptions = {}): Promise<SharedDatabase> {
  const database = await migratedDatabase();
  try {
    const ports = await freePorts(options.instances ?? 1);
    const env = { DATABASE_URL: database.url, BASE_URL: `http://127.0.0.1:${ports[0]}`, ...options.env };
    const ctx = await createContext(loadConfig({ ...env, ...options.handleEnv }), { poll: false });
    const close = async () => {
      await closeContext(ctx);
      await database.drop();
    };
    return { database, ctx, ports, env, close };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
