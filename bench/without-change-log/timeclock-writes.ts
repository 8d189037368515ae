// Bench-only stand-ins for what the timeclock write path imports from the change log
// (src/changes/change-log.ts and notifier.ts), put in place by ./register.ts: the event's insert
// runs exactly as the service runs it (on SQLite the group's multi-row inserts in its synced
// transaction; on PostgreSQL the same prepared group insert, autocommitted), without the change-log rows and without waking the
// change listeners. Same signatures, so src/timeclock/ runs unchanged.
import type { Db } from '../../src/platform/db/database.ts';
import { runPrepared, type PreparedStatement } from '../../src/platform/db/prepared.ts';
import { returningIds } from '../../src/changes/change-log.ts';

/** SQLite: the group's events are inserted by store.ts itself in their transaction; their changes are not. */
export async function recordCompanyChanges(): Promise<void> {}

export async function insertAllWithChanges(db: Db, insert: PreparedStatement, values: readonly unknown[]): Promise<Set<string>> {
  // The very statement the service runs as the CTE feeding the changes' insert (change-log.ts).
  const stored = await runPrepared<{ id: string }>(db, returningIds(insert), values);
  return new Set(stored.map((row) => row.id));
}

export function announceChanges(): void {}
