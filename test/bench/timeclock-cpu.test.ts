// The comparison of issue 14's 15 % is fair only if the bench-only build without the change log runs
// the service's very statements minus the change-log rows: the same look-ups and the same grouped
// insert (the CTE of the service's statement, run alone), as many of them, storing the same events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { testDialect } from '../support/database.ts';
import { runVariant, timeclockDatabase, type VariantResult } from '../../bench/timeclock-cpu.ts';

const POSTGRES_URL = process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PEOPLE = 8;
const ROUNDS = 3;

/** The timeclock's own statements (the revocation poll and the notifications aside). */
const timeclockStatements = (result: VariantResult) => Object.fromEntries(Object.entries(result.statements).filter(([name]) => name.startsWith('timeclock_')));

async function countRows(url: string, text: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(text)).rows[0]!.n);
  } finally {
    await client.end();
  }
}

test('the build without the change log sends the same timeclock statements, as many, and stores the same events without their changes', { skip: testDialect !== 'postgres' && 'PostgreSQL only' }, async () => {
  const setup = await timeclockDatabase(POSTGRES_URL, PEOPLE);
  try {
    const load = { databaseUrl: setup.database.url, organisationId: setup.organisationId, userIds: setup.userIds, warmupRounds: 1, rounds: ROUNDS, concurrency: PEOPLE };
    const start = Date.now() - 86_400_000;
    const without = await runVariant({ ...load, firstEventAt: start }, false);
    const events = () => countRows(setup.database.url, 'select count(*) as n from timeclock_events');
    const changes = () => countRows(setup.database.url, `select count(*) as n from company_changes where type = 'timeclock_event.created'`);
    assert.equal(await events(), PEOPLE * (ROUNDS + 1));
    assert.equal(await changes(), 0);
    const withIt = await runVariant({ ...load, firstEventAt: start + 3_600_000 }, true);
    assert.equal(await events(), 2 * PEOPLE * (ROUNDS + 1));
    assert.equal(await changes(), PEOPLE * (ROUNDS + 1));

    assert.deepEqual([without.withChangeLog, withIt.withChangeLog], [false, true]);
    // The people of a round arrive together: one look-up and one insert per round, in both builds.
    assert.deepEqual(timeclockStatements(without), { timeclock_people: ROUNDS, timeclock_events_insert_returning: ROUNDS });
    assert.deepEqual(timeclockStatements(withIt), { timeclock_people: ROUNDS, timeclock_events_insert_with_changes: ROUNDS });
    // The wake-up is the one other statement the change log adds.
    assert.ok((withIt.statements['select pg_notify($1, $2)'] ?? 0) > 0);
    assert.equal(without.statements['select pg_notify($1, $2)'], undefined);
  } finally {
    await setup.database.drop();
  }
});
