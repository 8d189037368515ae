// The revocation list learns of revocations made elsewhere (another instance, the CLI) by polling the
// grants table every REVOCATION_REFRESH_MS of the context's clock: the test moves the clock instead of
// waiting for the poll. The real interval is an hour here, so only the move can run it.
//
// Another instance is a second RevocationList on a database connection of its own. What it must see
// does not depend on clocks: a revocation whose revoked_at is older than any window when it commits
// (its write waited behind a lock or an import, or the writer's clock is behind) is still read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ManualClock } from '../../src/platform/clock.ts';
import { createDatabase, onPostgres, whileMainConnectionWaits, type Db } from '../../src/platform/db/database.ts';
import { createGrant, revokeGrants } from '../../src/iam/grants.ts';
import { RevocationList } from '../../src/iam/revocations.ts';
import { useTestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';

const clock = new ManualClock();
const server = useTestServer({ REVOCATION_REFRESH_MS: '3600000' }, { clock, inProcess: true });
const POLL_MS = 1_000;

async function newGrant(db = server.ctx.db, tenant?: Tenant): Promise<string> {
  const { clientId, userId } = tenant ?? (await provisionTenant(server.ctx));
  return createGrant(db, { clientId, userId, kind: 'authorization_code', authTime: clock.now(), chainMaxSeconds: 3600 }, clock.now());
}

/** Another instance's revocation list (its own connection, polled by hand), for the length of `use`. */
async function elsewhere(use: (list: RevocationList, db: Db) => Promise<void>): Promise<void> {
  const db = createDatabase(server.config.databaseUrl, { poolSize: 2 });
  const list = new RevocationList(db, clock, server.config.accessTokenTtl * 1000);
  try {
    await list.refresh();
    await use(list, db);
  } finally {
    await db.destroy();
  }
}

/** Polls `list` once a second of the clock for `ms`, as the instance's own timer would. */
async function pollFor(list: RevocationList, ms: number): Promise<void> {
  for (let moved = 0; moved < ms; moved += POLL_MS) {
    clock.advance(POLL_MS);
    await list.refresh();
  }
}

/**
 * Runs `work` while the grant's row cannot be written: on PostgreSQL another transaction holds its
 * row lock; on SQLite an import-like write holds this process's connection (whileMainConnectionWaits).
 */
async function whileGrantLocked(db: Db, grantId: string, work: (started: Promise<void>) => Promise<void>): Promise<void> {
  let locked!: () => void;
  const started = new Promise<void>((resolve) => (locked = resolve));
  if (!onPostgres(db)) return whileMainConnectionWaits(db, async () => {
    locked();
    await work(started);
  });
  await db.transaction().execute(async (trx) => {
    await sql`select id from grants where id = ${grantId} for update`.execute(trx);
    locked();
    await work(started);
  });
}

test('a grant revoked in the database without this instance knowing is revoked here at the next poll of the clock', async () => {
  const grantId = await newGrant();
  // As another instance does: the row only, not this instance's list.
  await revokeGrants(server.ctx.db, { grantId }, 'revoked_elsewhere', clock.now());
  assert.equal(server.ctx.revocations.isRevoked(grantId), false, 'not before the poll');
  clock.advance(server.config.revocationRefreshMs);
  await clock.settled();
  assert.equal(server.ctx.revocations.isRevoked(grantId), true, 'after the poll the clock ran');
});

test('a revocation stamped long before it commits (a writer whose clock is behind) reaches another instance at its next poll', async () => {
  const grantId = await newGrant();
  await elsewhere(async (list) => {
    await pollFor(list, 30_000);
    await revokeGrants(server.ctx.db, { grantId }, 'revoked_elsewhere', clock.now() - 30_000);
    await pollFor(list, POLL_MS);
    assert.equal(list.isRevoked(grantId), true);
  });
});

test('a revocation whose write waited 30 s for a lock reaches another instance at the first poll after it commits', async () => {
  const grantId = await newGrant();
  await elsewhere(async (list) => {
    let revoking: Promise<string[]> | undefined;
    await whileGrantLocked(server.ctx.db, grantId, async (locked) => {
      await locked;
      // Stamped now, written once the lock is free.
      revoking = revokeGrants(server.ctx.db, { grantId }, 'revoked_elsewhere', clock.now());
      await pollFor(list, 30_000);
      assert.equal(list.isRevoked(grantId), false, 'not committed yet');
    });
    assert.deepEqual(await revoking, [grantId]);
    await pollFor(list, POLL_MS);
    assert.equal(list.isRevoked(grantId), true);
  });
});

test('a revocation whose transaction stays open over later commits is read when it commits', async () => {
  const tenant = await provisionTenant(server.ctx);
  const grantId = await newGrant(server.ctx.db, tenant);
  await elsewhere(async (list, otherDb) => {
    await server.ctx.db.transaction().execute(async (trx) => {
      await revokeGrants(trx, { grantId }, 'revoked_elsewhere', clock.now());
      // On PostgreSQL a later transaction commits meanwhile: the reader's snapshots move past the
      // open one, which they list in progress. (On SQLite the open one holds the only write lock.)
      if (onPostgres(otherDb)) await newGrant(otherDb, tenant);
      await pollFor(list, 5 * POLL_MS);
      assert.equal(list.isRevoked(grantId), false, 'not committed yet');
    });
    await pollFor(list, POLL_MS);
    assert.equal(list.isRevoked(grantId), true);
  });
});

test('the poll is not held up while an import holds this instance\'s database connection', { timeout: 10_000 }, async () => {
  const grantId = await newGrant();
  await elsewhere(async (_list, otherDb) => {
    await whileMainConnectionWaits(server.ctx.db, async () => {
      await revokeGrants(otherDb, { grantId }, 'revoked_elsewhere', clock.now());
      clock.advance(server.config.revocationRefreshMs);
      await clock.settled();
      assert.equal(server.ctx.revocations.isRevoked(grantId), true);
    });
  });
});
