// Every command acts on the database named by DATABASE_URL, migrated first, so a command works on a
// fresh install and beside a running server alike (servers read the same tables and see the change).
import { loadConfig, type Config } from '../platform/config.ts';
import { createDatabase, type Db } from '../platform/db/database.ts';
import { migrateToLatest } from '../platform/db/migrate.ts';
import { ensureSigningKey } from '../iam/keys.ts';

export interface CommandContext {
  config: Config;
  db: Db;
  /** Migrations this run applied (empty when the database was up to date). */
  applied: string[];
}

/** Opens and migrates the database for one command, and closes it afterwards whatever happens. */
export async function withDatabase<T>(work: (context: CommandContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = createDatabase(config.databaseUrl, { poolSize: config.dbPoolSize, statementTimeoutMs: config.dbStatementTimeoutMs });
  try {
    const applied = await migrateToLatest(db);
    await ensureSigningKey(db);
    return await work({ config, db, applied });
  } finally {
    await db.destroy();
  }
}
