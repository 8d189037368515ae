// getTimeclockBadgeCollection: every employee with an active timeclock and a badge, across the
// organisation's companies (or one of them), ordered by badge id — unique within the organisation.
import type { NotNull } from 'kysely';
import { Type, type Static } from 'typebox';
import { formatInstant } from '../platform/local-time.ts';
import type { Db } from '../platform/db/database.ts';
import { afterPosition, type SortKey } from '../platform/collection.ts';
import type { Listing } from '../platform/paged-collection.ts';

export const Badge = Type.Object({
  id: Type.String({ description: 'The badge id (items of this collection are badges).' }),
  badgeId: Type.String(),
  userId: Type.String(),
  companyId: Type.String(),
  employeeNumber: Type.String(),
  displayName: Type.String({ description: 'First and last name.' }),
  activatedAt: Type.Union([Type.String(), Type.Null()], { description: 'When the timeclock was activated, in the company offset.' }),
  updatedAt: Type.String(),
});
export type Badge = Static<typeof Badge>;

export interface BadgeRow {
  id: string;
  badge_id: string;
  company_id: string;
  employee_number: string;
  first_name: string;
  last_name: string;
  activated_at: number | null;
  updated_at: number;
  timezone: string;
}

/** The organisation's badges (or one company's) as a paged listing, ordered by badge id. */
export function badgeListing(db: Db, organisationId: string, companyId: string | undefined): Listing<BadgeRow, Badge> {
  return { rows: (count, after) => listBadges(db, organisationId, companyId, count, after), position: (row) => [row.badge_id], present: presentBadge };
}

/** Up to `count` badges after the position, when given. */
function listBadges(db: Db, organisationId: string, companyId: string | undefined, count: number, after: SortKey | undefined): Promise<BadgeRow[]> {
  let query = db
    .selectFrom('employees as p')
    // Each row's company time zone in the page's one statement (docs/architecture.md, "Joins of companies").
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .select(['p.id', 'p.badge_id', 'p.company_id', 'p.employee_number', 'p.first_name', 'p.last_name', 'p.activated_at', 'p.updated_at', 'c.timezone'])
    .where('p.organisation_id', '=', organisationId)
    .where('p.timeclock_active', '=', 1)
    .where('p.badge_id', 'is not', null);
  if (companyId !== undefined) query = query.where('p.company_id', '=', companyId);
  if (after) query = query.where(afterPosition(['p.badge_id'], after));
  return query.orderBy('p.badge_id').limit(count).$narrowType<{ badge_id: NotNull }>().execute();
}

export function presentBadge(row: BadgeRow): Badge {
  return {
    id: row.badge_id,
    badgeId: row.badge_id,
    userId: row.id,
    companyId: row.company_id,
    employeeNumber: row.employee_number,
    displayName: `${row.first_name} ${row.last_name}`.trim(),
    activatedAt: row.activated_at === null ? null : formatInstant(row.activated_at, row.timezone),
    updatedAt: formatInstant(row.updated_at, row.timezone),
  };
}
