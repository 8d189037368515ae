// createTimeclockEvent. The rules of the contract's secured company API: idempotency first (a resent event gets its original
// answer, whatever else has changed since), then the future check, the person (badge or user, within
// the organisation, in the given company, timeclock active), then per-person order.
//
// Concurrency is settled by the database, so it holds across server processes. An append reads the
// person's latest event and inserts the next one with sequence = latest + 1, in one statement. Two
// appends that read the same latest event claim the same sequence, and the unique (person,
// sequence) index lets only one of them in — on PostgreSQL the loser waits for the winner's commit
// and then fails. The loser looks its eventId up (the winner may have stored this very event: a
// replay) and otherwise starts over from the new latest event. The unique (organisation, eventId)
// index likewise turns a duplicate into "look up, start over". The insert commits before the 200.
import type { Db } from '../platform/db/database.ts';
import { ProblemError, badRequest, conflict, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { canonicalEventId, contentHash, parseOccurredAt, presentEvent, type TimeclockEvent, type TimeclockEventInput } from './events.ts';
import { transition } from './transitions.ts';
import type { PresenceState, TimeclockEventsTable } from './tables.ts';
import { durablyGrouped } from '../platform/db/durability.ts';
import { compiledOnce } from '../platform/db/compiled-once.ts';
import { formatInstant } from '../platform/local-time.ts';
import { insertWithChange } from '../changes/change-log.ts';
import { announceChanges } from '../changes/notifier.ts';

const FUTURE_LEEWAY_MS = 5 * 60_000;
/** Each round at least one competing append succeeds, so this bounds a burst of that many per person. */
const MAX_ATTEMPTS = 100;

/** A person and where they stand: their latest event's sequence, time and state (0, null, off before any). */
interface Person {
  id: string;
  companyId: string;
  timezone: string;
  lastSequence: number;
  lastOccurredAt: number | null;
  state: PresenceState;
}

async function findStoredEvent(db: Db, organisationId: string, eventId: string) {
  return db
    .selectFrom('timeclock_events as e')
    // The company's time zone in the same statement (docs/architecture.md, "Joins of companies").
    .innerJoin('companies as c', 'c.id', 'e.company_id')
    .selectAll('e')
    .select('c.timezone')
    .where('e.organisation_id', '=', organisationId)
    .where('e.event_id', '=', eventId)
    .executeTakeFirst();
}

function replay(stored: TimeclockEventsTable & { timezone: string }, hash: string): TimeclockEvent {
  if (stored.content_hash !== hash) {
    throw conflict('event_id_conflict', `eventId ${stored.event_id} was already used for another event; choose a new eventId for a new event.`);
  }
  return presentEvent(stored, stored.timezone);
}

/** The person by badge or by id within the organisation, with their latest event's fields. */
function personQuery(key: 'p.badge_id' | 'p.id') {
  return compiledOnce((db: Db, values: { organisationId: string; key: string }) =>
    db
      .selectFrom('employees as p')
      // The company's time zone in the same statement as the person (docs/architecture.md, "Joins of companies").
      .innerJoin('companies as c', 'c.id', 'p.company_id')
      .select(['p.id', 'p.company_id', 'p.timeclock_active', 'c.timezone'])
      // The latest event's fields, each a backward probe of the unique (person, sequence) index that
      // stops at the first entry; a plain join on max(sequence) can be planned as a scan of all events.
      .select((eb) => {
        const latest = () => eb.selectFrom('timeclock_events as e').whereRef('e.employee_id', '=', 'p.id').orderBy('e.sequence', 'desc').limit(1);
        return [
          latest().select('e.sequence').as('last_sequence'),
          latest().select('e.occurred_at').as('last_occurred_at'),
          latest().select('e.state_after').as('last_state'),
        ];
      })
      .where('p.organisation_id', '=', values.organisationId)
      .where(key, '=', values.key),
  );
}
const personByBadge = personQuery('p.badge_id');
const personById = personQuery('p.id');

async function findPerson(db: Db, organisationId: string, input: TimeclockEventInput): Promise<Person> {
  const query = input.badgeId != null ? personByBadge(db, { organisationId, key: input.badgeId }) : personById(db, { organisationId, key: input.userId ?? '' });
  const [row] = (await db.executeQuery(query)).rows;
  const who = input.badgeId != null ? `badge ${input.badgeId}` : `user ${input.userId}`;
  if (!row || (input.companyId != null && row.company_id !== input.companyId)) {
    throw notFound(input.companyId != null ? `No ${who} in company ${input.companyId}.` : `No ${who} in this organisation.`);
  }
  if (row.timeclock_active !== 1) throw conflict('timeclock_inactive', `The timeclock of ${who} is not active.`);
  return {
    id: row.id,
    companyId: row.company_id,
    timezone: row.timezone,
    lastSequence: row.last_sequence ?? 0,
    lastOccurredAt: row.last_occurred_at === null ? null : Number(row.last_occurred_at),
    state: row.last_state ?? 'off',
  };
}

const eventInsert = compiledOnce((db: Db, event: TimeclockEventsTable) => db.insertInto('timeclock_events').values(event));

function lostRace(error: unknown): boolean {
  const { code, errcode, message } = (error ?? {}) as { code?: string; errcode?: number; message?: string };
  // PostgreSQL unique_violation; SQLite SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY.
  return code === '23505' || errcode === 2067 || errcode === 1555 || /UNIQUE constraint failed/.test(message ?? '');
}

/**
 * Stores the event and its change-log entry (committed when this returns), or returns false when a
 * concurrent append won. The change is logged in the company of the event's person.
 */
async function append(db: Db, event: TimeclockEventsTable, stored: TimeclockEvent, timezone: string): Promise<boolean> {
  const change = { resourceType: 'timeclock_event', action: 'created', resourceId: event.id, data: stored } as const;
  try {
    await durablyGrouped(db, (trx) => insertWithChange(trx, eventInsert(trx, event), event.company_id, change, { at: event.received_at, timezone }));
    announceChanges(db, event.company_id);
    return true;
  } catch (error) {
    if (lostRace(error)) return false;
    throw error;
  }
}

/** One try at appending: the event as stored, undefined when a concurrent append won, or a thrown refusal. */
async function tryAppend(db: Db, organisationId: string, input: TimeclockEventInput, eventId: string, occurredAt: number, hash: string, now: number): Promise<TimeclockEvent | undefined> {
  if (occurredAt > now + FUTURE_LEEWAY_MS) {
    throw badRequest('occurred_in_future', 'occurredAt is more than 5 minutes ahead of the server clock.', [{ path: '/occurredAt', message: 'must not be more than 5 minutes in the future' }]);
  }
  const person = await findPerson(db, organisationId, input);
  if (person.lastOccurredAt !== null && occurredAt <= person.lastOccurredAt) {
    throw conflict('out_of_order', `occurredAt must be later than the person's last accepted event (${formatInstant(person.lastOccurredAt, person.timezone)}).`);
  }
  const next = transition(person.state, input.type);
  const event: TimeclockEventsTable = {
    id: newId('tce'),
    organisation_id: organisationId,
    company_id: person.companyId,
    employee_id: person.id,
    event_id: eventId,
    content_hash: hash,
    sequence: person.lastSequence + 1,
    type: input.type,
    occurred_at: occurredAt,
    received_at: now,
    source: input.source,
    badge_id: input.badgeId ?? null,
    device_id: input.deviceId ?? null,
    location: input.location ? JSON.stringify({ latitude: input.location.latitude, longitude: input.location.longitude }) : null,
    anomaly: next.anomaly,
    state_after: next.state,
  };
  const stored = presentEvent(event, person.timezone);
  return (await append(db, event, stored, person.timezone)) ? stored : undefined;
}

export async function recordEvent(db: Db, organisationId: string, input: TimeclockEventInput, now = Date.now()): Promise<TimeclockEvent> {
  if ((input.badgeId == null) === (input.userId == null)) {
    throw badRequest('validation_failed', 'Send exactly one of badgeId and userId.', [{ path: '/badgeId', message: 'exactly one of badgeId and userId is required' }]);
  }
  const eventId = canonicalEventId(input.eventId);
  const occurredAt = parseOccurredAt(input.occurredAt);
  const hash = contentHash(input, occurredAt);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    let refusal: ProblemError | undefined;
    try {
      const stored = await tryAppend(db, organisationId, input, eventId, occurredAt, hash, now);
      if (stored) return stored;
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      refusal = error;
    }
    // Idempotency comes first: when the append did not happen, an event already stored under this
    // eventId decides the answer (a replay is always "out of order", its person may be gone, …).
    // The happy path skips this look-up: the unique index on eventId makes a duplicate append fail.
    const existing = await findStoredEvent(db, organisationId, eventId);
    if (existing) return replay(existing, hash);
    if (refusal) throw refusal;
  }
  throw new ProblemError({ code: 'busy', detail: 'Too many concurrent events for this person; retry.', headers: { 'Retry-After': '1' } });
}
