// A fresh, empty database per benchmark column: a temporary SQLite file, or a new PostgreSQL database
// on the machine's server, dropped afterwards. Same pattern as test/support/database.ts, but the
// dialect is chosen per call because one run measures both.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Dialect } from './options.ts';

export interface BenchDatabase {
  readonly dialect: Dialect;
  readonly url: string;
  readonly drop: () => Promise<void>;
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export async function freshBenchDatabase(dialect: Dialect, postgresAdminUrl: string): Promise<BenchDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wfs-bench-'));
    return { dialect, url: `sqlite:${join(dir, 'wfs.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `wfs_bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(postgresAdminUrl, `create database ${name}`);
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return { dialect, url: url.toString(), drop: () => adminQuery(postgresAdminUrl, `drop database if exists ${name} with (force)`) };
}

/** Fresh statistics of the timeclock's tables (PostgreSQL; SQLite plans without them): see compareTimeclock. */
export async function analyzeTimeclockTables(database: BenchDatabase): Promise<void> {
  if (database.dialect === 'postgres') await adminQuery(database.url, 'analyze timeclock_events, company_changes');
}
