// The timeclock event as sent and as stored (contract: secured company API), and the mapping between them.
import { hash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { DateTime } from 'luxon';
import { formatInstant } from '../platform/local-time.ts';
import { badRequest } from '../platform/errors.ts';
import { orNull } from '../platform/schemas.ts';
import { ANOMALIES } from './transitions.ts';
import type { TimeclockEventsTable } from './tables.ts';

const PunchType = Type.Enum(['clock_in', 'clock_out', 'break_start', 'break_end']);
const Source = Type.Enum(['mobile', 'terminal', 'web', 'api']);
const Location = Type.Object(
  { latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }) },
  { additionalProperties: false },
);

export const TimeclockEventInput = Type.Object(
  {
    eventId: Type.String({ format: 'uuid', description: 'A UUID chosen by the sender; resending the same event with it is answered with the original 200. Stored and answered as the lower-case bare UUID: upper case and a `urn:uuid:` prefix are accepted and name the same event.' }),
    badgeId: orNull(Type.String({ minLength: 1, maxLength: 100 }), 'The person\'s badge. Exactly one of badgeId and userId.'),
    userId: orNull(Type.String({ minLength: 1, maxLength: 100 }), 'The person\'s user id. Exactly one of badgeId and userId.'),
    companyId: orNull(Type.String({ minLength: 1, maxLength: 100 }), 'When given, must be the person\'s company.'),
    type: PunchType,
    occurredAt: Type.String({ format: 'date-time', description: 'ISO 8601 with an offset or Z; later than the person\'s previous event, at most 5 minutes ahead.' }),
    source: Source,
    deviceId: orNull(Type.String({ minLength: 1, maxLength: 200 }), 'The terminal or phone that registered the punch.'),
    location: orNull(Location, 'Where the punch was registered.'),
  },
  { additionalProperties: false },
);
export type TimeclockEventInput = Static<typeof TimeclockEventInput>;

export const TimeclockEvent = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  userId: Type.String(),
  badgeId: Type.Union([Type.String(), Type.Null()], { description: 'The badge the event was sent with; null when sent with userId.' }),
  companyId: Type.String(),
  type: PunchType,
  occurredAt: Type.String({ description: 'In the company offset.' }),
  source: Source,
  deviceId: Type.Union([Type.String(), Type.Null()]),
  location: Type.Union([Location, Type.Null()]),
  sequence: Type.Integer({ minimum: 1, description: 'Position in the person\'s events: 1, 2, 3, … without gaps.' }),
  receivedAt: Type.String({ description: 'When the service accepted the event, in the company offset.' }),
  anomaly: Type.Union([Type.Enum(ANOMALIES), Type.Null()], { description: 'Set when the punch makes no sense after the previous one; the event is stored all the same.' }),
  updatedAt: Type.String({ description: 'Equal to receivedAt: events never change.' }),
});
export type TimeclockEvent = Static<typeof TimeclockEvent>;

/**
 * The form terminals send (RFC 3339 with `T`, seconds, an optional fraction and `Z` or `±HH:MM`), read
 * without luxon: its general ISO parser was 4 % of a timeclock event's CPU (docs/benchmarks.md).
 */
const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(?:Z|([+-])(\d\d):(\d\d))$/;

/**
 * Epoch ms of `value` when it has the RFC 3339 form and every field is in range, computed as luxon
 * computes it (the fraction's milliseconds rounded down); undefined otherwise, for luxon to decide.
 */
function parseRfc3339(value: string): number | undefined {
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [, , , , , , , fraction, sign, offsetHours, offsetMinutes] = match;
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || Number(offsetHours ?? 0) > 23 || Number(offsetMinutes ?? 0) > 59) return undefined;
  // Date.UTC rolls an impossible day over into the next month: such a date is not read here.
  const local = Date.UTC(year, month - 1, day, hour, minute, second, fraction === undefined ? 0 : Math.floor(parseFloat(`0.${fraction}`) * 1000));
  if (new Date(local).getUTCDate() !== day) return undefined;
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  return local - offset * 60_000;
}

/** Epoch ms of an ISO 8601 instant with an offset or Z; a 400 naming occurredAt otherwise. */
export function parseOccurredAt(value: string): number {
  const fast = parseRfc3339(value);
  if (fast !== undefined) return fast;
  const instant = DateTime.fromISO(value, { setZone: true });
  if (!instant.isValid || !/(?:z|[+-]\d\d(?::?\d\d)?)$/i.test(value)) {
    throw badRequest('validation_failed', 'occurredAt must be an ISO 8601 instant with an offset, such as 2026-11-22T09:00:00+01:00.', [
      { path: '/occurredAt', message: 'must be an ISO 8601 instant with an offset' },
    ]);
  }
  return instant.toMillis();
}

/**
 * The one stored form of an eventId: the lower-case bare UUID. The schema also takes upper case and
 * the `urn:uuid:` prefix (RFC 9562 §4) — terminals write both — and they name the same event.
 */
export function canonicalEventId(eventId: string): string {
  return eventId.toLowerCase().replace(/^urn:uuid:/, '');
}

/** Identifies the event's content, so a resend can be told from another event reusing the eventId. */
export function contentHash(input: TimeclockEventInput, occurredAt: number): string {
  const content = [
    input.badgeId ?? null,
    input.userId ?? null,
    input.companyId ?? null,
    input.type,
    occurredAt,
    input.source,
    input.deviceId ?? null,
    input.location ? [input.location.latitude, input.location.longitude] : null,
  ];
  // One-shot: no Hash object per event.
  return hash('sha256', JSON.stringify(content), 'base64url');
}

export function presentEvent(row: TimeclockEventsTable, timezone: string): TimeclockEvent {
  const receivedAt = formatInstant(row.received_at, timezone);
  return {
    id: row.id,
    eventId: row.event_id,
    userId: row.employee_id,
    badgeId: row.badge_id,
    companyId: row.company_id,
    type: row.type,
    occurredAt: formatInstant(row.occurred_at, timezone),
    source: row.source as TimeclockEvent['source'],
    deviceId: row.device_id,
    location: row.location === null ? null : (JSON.parse(row.location) as TimeclockEvent['location']),
    sequence: row.sequence,
    receivedAt,
    anomaly: row.anomaly as TimeclockEvent['anomaly'],
    updatedAt: receivedAt,
  };
}
