// The dispatcher's looks for work: a committed change (changed()) makes it claim only while some
// endpoint is enabled, since on an install without webhooks a claim every 20 ms of writes costs ~5 %
// of a core for nothing; an explicit wake (a message queued, an endpoint enabled here) always claims.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KyselyPlugin } from 'kysely';
import { createDatabase } from '../../src/platform/db/database.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { changeLog } from '../../src/webhooks/change-stream.ts';
import { migratedDatabase, testDialect } from '../support/database.ts';
import { eventually } from '../multi-instance/client.ts';

/**
 * Counts the claims (the dispatcher's only UPDATE when it finds no work) and the answered checks for
 * an enabled endpoint (the last statement of a look: its only SELECT with a LIMIT and a WHERE),
 * leaving every statement as it is.
 */
function countLooks(claimed: () => void, checked: () => void): KyselyPlugin {
  const checks = new WeakSet<object>();
  return {
    transformQuery: ({ node, queryId }) => {
      if (node.kind === 'UpdateQueryNode') claimed();
      if (node.kind === 'SelectQueryNode' && node.where && node.limit) checks.add(queryId);
      return node;
    },
    transformResult: async ({ result, queryId }) => {
      if (checks.has(queryId)) checked();
      return result;
    },
  };
}

test('with no endpoint enabled a committed change claims nothing; an explicit wake still claims', async () => {
  const database = await migratedDatabase();
  const db = createDatabase(database.url);
  let claims = 0;
  let checks = 0;
  const dispatcher = new WebhookDispatcher({
    db: db.withPlugin(countLooks(() => (claims += 1), () => (checks += 1))),
    dialect: testDialect,
    clock: systemClock,
    box: () => Promise.reject(new Error('no delivery in this test')),
    stream: changeLog,
    timeoutMs: 1000,
    schedule: [1000],
    policy: { allowInsecure: true },
    deliveryRetentionMs: 86_400_000,
    // No poll inside the test: every claim after the first comes from changed() or wake().
    pollMs: 60_000,
  });
  try {
    dispatcher.start();
    await eventually('the first look', 5000, async () => claims === 1);
    // Let the first look finish: it also learns that no endpoint is enabled. Waited for, not slept: a
    // change during the look counts as a wake (a second claim), and under load 300 ms were not sure.
    await eventually('the first look learns that no endpoint is enabled', 5000, async () => checks === 1);
    for (let i = 0; i < 5; i++) {
      dispatcher.changed();
      await sleep(40);
    }
    assert.equal(claims, 1, 'changes with no endpoint enabled claim nothing');
    dispatcher.wake();
    await eventually('the woken look', 5000, async () => claims === 2);
    dispatcher.changed();
    await eventually('a change after the wake looks again', 5000, async () => claims === 3);
  } finally {
    await dispatcher.close();
    await db.destroy();
    await database.drop();
  }
});
