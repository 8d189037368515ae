// Bench-only stand-ins for what the timeclock write path imports from the change log
// (src/changes/change-log.ts and notifier.ts), put in place by ./register.ts: the event's insert
// runs exactly as the service runs it (inside the grouped durable commit on SQLite, autocommitted on
// PostgreSQL), without the change-log row and without waking the change listeners. Same signatures,
// so src/timeclock/record.ts runs unchanged.
import type { Compilable, Transaction } from 'kysely';
import type { Db } from '../../src/platform/db/database.ts';
import type { Database } from '../../src/platform/db/schema.ts';

export async function insertWithChange(connection: Db | Transaction<Database>, insert: Compilable): Promise<void> {
  await connection.executeQuery(insert);
}

export function announceChanges(): void {}
