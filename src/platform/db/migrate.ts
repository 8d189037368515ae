// Migrations live in ./migrations, one file each, applied in name order. Kysely's migrator takes a
// lock table (a table lock on PostgreSQL), so two concurrent `wfs migrate` runs never interleave.
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.ts';

const folder = new URL('./migrations/', import.meta.url);

class FolderMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const names = (await readdir(fileURLToPath(folder))).filter((f) => /^\d{4}_.*\.ts$/.test(f)).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of names) {
      migrations[file.replace(/\.ts$/, '')] = (await import(new URL(file, folder).href)) as Migration;
    }
    return migrations;
  }
}

/**
 * Names of applied migrations this release does not know: a newer release has migrated the database.
 * Migrations are additive, so an older instance (a rollback, a crash restart during a rolling deploy)
 * keeps serving instead of refusing to start.
 */
async function unknownAppliedMigrations(db: Db, known: Record<string, Migration>): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === 'kysely_migration')) return [];
  const rows = await db.withoutPlugins().selectFrom('kysely_migration' as never).select('name' as never).execute();
  return (rows as { name: string }[]).map((r) => r.name).filter((name) => !(name in known));
}

export async function migrateToLatest(db: Db, onNewerSchema: (names: string[]) => void = () => {}): Promise<string[]> {
  const provider = new FolderMigrationProvider();
  const newer = await unknownAppliedMigrations(db, await provider.getMigrations());
  if (newer.length > 0) {
    onNewerSchema(newer);
    return [];
  }
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
