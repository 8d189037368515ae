// Read-back of timeclock events: those that occurred within a period of whole days in the token
// company's time zone, across the organisation (or one company, or one person), ordered by
// occurredAt, then id.
import { DateTime } from 'luxon';
import type { Db } from '../platform/db/database.ts';
import type { Period } from '../platform/period.ts';
import { afterPosition, type SortKey } from '../platform/collection.ts';
import type { Listing } from '../platform/paged-collection.ts';
import { presentEvent, type TimeclockEvent } from './events.ts';
import type { TimeclockEventsTable } from './tables.ts';

export interface EventFilter {
  userId?: string;
  companyId?: string;
}

export type EventRow = TimeclockEventsTable & { timezone: string };

/** The instants [start, end) covering the days of `period` in `zone`. */
export function periodInstants(period: Period, zone: string): { start: number; end: number } {
  return {
    start: DateTime.fromISO(period.from, { zone }).startOf('day').toMillis(),
    end: DateTime.fromISO(period.to, { zone }).plus({ days: 1 }).startOf('day').toMillis(),
  };
}

/** The organisation's events in [start, end) as a paged listing, each in its company's offset. */
export function eventListing(db: Db, organisationId: string, range: { start: number; end: number }, filter: EventFilter): Listing<EventRow, TimeclockEvent> {
  return { rows: (count, after) => listEvents(db, organisationId, range, filter, count, after), position: (row) => [row.occurred_at, row.id], present: (row) => presentEvent(row, row.timezone) };
}

/** Up to `count` events in [start, end), after the position when given. */
function listEvents(db: Db, organisationId: string, range: { start: number; end: number }, filter: EventFilter, count: number, after: SortKey | undefined): Promise<EventRow[]> {
  let query = db
    .selectFrom('timeclock_events as e')
    // Each row's company time zone in the page's one statement (docs/architecture.md, "Joins of companies").
    .innerJoin('companies as c', 'c.id', 'e.company_id')
    .selectAll('e')
    .select('c.timezone')
    .where('e.organisation_id', '=', organisationId)
    .where('e.occurred_at', '>=', range.start)
    .where('e.occurred_at', '<', range.end);
  if (filter.userId !== undefined) query = query.where('e.employee_id', '=', filter.userId);
  if (filter.companyId !== undefined) query = query.where('e.company_id', '=', filter.companyId);
  if (after) query = query.where(afterPosition(['e.occurred_at', 'e.id'], after));
  return query.orderBy('e.occurred_at').orderBy('e.id').limit(count).execute();
}
