// Migrating a shared database while instances serve (issue 5, docs/deployment.md): `wfs migrate` runs
// take a lock so two never interleave, and a rolling upgrade leaves instances of the previous release
// able to (re)start on the schema the next release has migrated.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freshDatabase, type FreshDatabase } from '../support/database.ts';
import { freePorts, runWfsJson, startInstance } from '../support/processes.ts';
import { needsPostgres } from '../support/shared-database.ts';

const MIGRATIONS = readdirSync(fileURLToPath(new URL('../../src/platform/db/migrations/', import.meta.url)))
  .filter((file) => /^\d{4}_.*\.ts$/.test(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

describe('migrating a shared PostgreSQL database', { skip: needsPostgres }, () => {
  let database: FreshDatabase;

  before(async () => {
    database = await freshDatabase();
  });

  after(async () => {
    await database?.drop();
  });

  it('runs two `wfs migrate` at once without interleaving: each migration is applied exactly once', async () => {
    const runs = await Promise.all([runWfsJson(['migrate'], { DATABASE_URL: database.url }), runWfsJson(['migrate'], { DATABASE_URL: database.url })]);
    for (const run of runs) assert.equal(run.code, 0, JSON.stringify(run.json) + run.stderr);
    const applied = runs.flatMap((run) => run.json.applied as string[]);
    assert.deepEqual(applied.toSorted(), MIGRATIONS, 'every migration applied by exactly one of the runs');
    const again = await runWfsJson(['migrate'], { DATABASE_URL: database.url });
    assert.deepEqual(again.json, { applied: [] });
  });

  it('lets an instance of the previous release start on a database the next release has migrated', async () => {
    // What the next release's `wfs migrate` leaves behind: one more (additive) migration recorded.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query("insert into kysely_migration (name, timestamp) values ('9999_next_release_addition', $1)", [new Date().toISOString()]);
    } finally {
      await client.end();
    }
    const [port = 0] = await freePorts(1);
    const instance = await startInstance({ port, env: { DATABASE_URL: database.url } });
    await instance.stop();
  });
});
