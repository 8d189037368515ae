// Employments and contracts run from a first day to a last day, or stay open (null last day);
// both listings select the ranges that share a day with the requested period.
import { sql, type RawBuilder } from 'kysely';
import type { Period } from '../platform/period.ts';

/** The range `start`..`end` (an open range when `end` is null) shares at least one day with `period`. */
export function overlapsPeriod(start: string, end: string, period: Period): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(start)} <= ${period.to} and (${sql.ref(end)} is null or ${sql.ref(end)} >= ${period.from}))`;
}
