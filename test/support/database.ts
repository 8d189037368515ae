// A fresh, empty database for each test server: a temporary SQLite file by default, or a new
// PostgreSQL database on the machine's server when WFS_TEST_DATABASE=postgres (CI runs both).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const testDialect: 'sqlite' | 'postgres' = process.env.WFS_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
const ADMIN_URL = process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export async function freshDatabase(): Promise<FreshDatabase> {
  if (testDialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wfs-test-'));
    return { url: `sqlite:${join(dir, 'wfs.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `wfs_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}
