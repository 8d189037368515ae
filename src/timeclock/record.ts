// createTimeclockEvent. The rules of the contract's secured company API: idempotency first (a resent event gets its original
// answer, whatever else has changed since), then the future check, the person (badge or user, within
// the organisation, in the given company, timeclock active), then per-person order.
//
// Concurrency is settled by the database, so it holds across server processes. An append reads the
// person's latest event and inserts the next one with sequence = latest + 1 (store.ts). Two appends
// that read the same latest event claim the same sequence, and the unique (person, sequence) index
// lets only one of them in — on PostgreSQL the loser waits for the winner's commit and is then
// skipped. The loser looks its eventId up (the winner may have stored this very event: a replay) and
// otherwise starts over from the new latest event. The unique (organisation, eventId) index likewise
// turns a duplicate into "look up, start over". The insert commits (and is on disk) before the 200.
import type { Db } from '../platform/db/database.ts';
import { ProblemError, badRequest, conflict } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { canonicalEventId, contentHash, parseOccurredAt, presentEvent, type TimeclockEvent, type TimeclockEventInput } from './events.ts';
import { transition } from './transitions.ts';
import type { TimeclockEventsTable } from './tables.ts';
import { formatInstant } from '../platform/local-time.ts';
import { announceChanges } from '../changes/notifier.ts';
import { appendEvent, findPerson, findStoredEvent } from './store.ts';

const FUTURE_LEEWAY_MS = 5 * 60_000;
/** Each round at least one competing append succeeds, so this bounds a burst of that many per person. */
const MAX_ATTEMPTS = 100;

function replay(stored: TimeclockEventsTable & { timezone: string }, hash: string): TimeclockEvent {
  if (stored.content_hash !== hash) {
    throw conflict('event_id_conflict', `eventId ${stored.event_id} was already used for another event; choose a new eventId for a new event.`);
  }
  return presentEvent(stored, stored.timezone);
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
  if (!(await appendEvent(db, { event, stored, timezone: person.timezone }))) return undefined;
  announceChanges(db, event.company_id);
  return stored;
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
