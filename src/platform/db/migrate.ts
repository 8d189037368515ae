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

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new FolderMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
