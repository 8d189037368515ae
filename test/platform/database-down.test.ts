// Which database errors are the database being briefly unavailable — answered 503 with Retry-After,
// which a client retries — rather than a fault of ours (500). On PostgreSQL that includes running out
// of connections: several instances and a deploy's overlap can reach max_connections together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testDialect } from '../support/database.ts';
import { isDatabaseDown } from '../../src/platform/http.ts';

const postgresOnly = testDialect !== 'postgres' && 'PostgreSQL only';
const ADMIN_URL = process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The error PostgreSQL itself answers a connection over a limit with (53300), from a role allowed none. */
async function connectionOverLimit(): Promise<unknown> {
  const role = `wfs_no_connections_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create role ${role} login connection limit 0`);
    const url = new URL(ADMIN_URL);
    url.username = role;
    const refused = new pg.Client({ connectionString: url.toString() });
    const error = await refused.connect().then(() => undefined, (failure: unknown) => failure);
    await refused.end().catch(() => undefined);
    return error;
  } finally {
    await admin.query(`drop role if exists ${role}`);
    await admin.end();
  }
}

test('a connection refused for too many connections (53300) is the database unavailable, not a fault', { skip: postgresOnly }, async () => {
  const error = await connectionOverLimit();
  assert.equal((error as { code?: string }).code, '53300', String(error));
  assert.equal(isDatabaseDown(error), true);
});

test('a query error of ours (a missing table) is a fault, not the database unavailable', { skip: postgresOnly }, async () => {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    const error = await client.query('select * from no_such_table_here').then(() => undefined, (failure: unknown) => failure);
    assert.equal(isDatabaseDown(error), false);
  } finally {
    await client.end();
  }
});
