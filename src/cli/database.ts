// Every command acts on the database named by DATABASE_URL, migrated first, so a command works on a
// fresh install and beside a running server alike (servers read the same tables and see the change).
// Signing keys are left to the servers (they make the first and seal old ones as they start): a
// command run without the servers' SECRETS_KEY must not seal a key with another.
import { loadConfig, type Config } from '../platform/config.ts';
import { useUserSecretCost } from '../iam/secrets.ts';
import { createDatabase, type Db } from '../platform/db/database.ts';
import { migrateToLatest } from '../platform/db/migrate.ts';
import type { Terminal } from '../../packages/cli/src/terminal.ts';

export interface CommandContext {
  config: Config;
  db: Db;
  /** Migrations this run applied (empty when the database was up to date). */
  applied: string[];
  /** Tells the operator something on standard error without failing the command. */
  readonly warn: (message: string) => void;
}

/** Opens and migrates the database for one command, and closes it afterwards whatever happens. */
export async function withDatabase<T>(terminal: Terminal, work: (context: CommandContext) => Promise<T>): Promise<T> {
  const config = loadConfig(terminal.env);
  useUserSecretCost(config.passwordHashCost);
  const db = createDatabase(config.databaseUrl, { poolSize: config.dbPoolSize, statementTimeoutMs: config.dbStatementTimeoutMs });
  try {
    const applied = await migrateToLatest(db);
    return await work({ config, db, applied, warn: (message) => terminal.stderr.write(`Warning: ${message}\n`) });
  } finally {
    await db.destroy();
  }
}
