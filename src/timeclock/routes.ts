// The timeclock (contract: secured company API): badges and events across the companies of the token's organisation
// (a terminal at a shared site serves several companies), `companyId` narrowing to one of them.
import { Type } from 'typebox';
import { acceptJsonOnly, type App } from '../platform/http.ts';
import type { Db } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { CompanyCache } from '../tenancy/company-cache.ts';
import { NoQuery, problemResponses, withExamples } from '../platform/schemas.ts';
import { pagedQuery, pagedResponses, replyPage } from '../platform/paged-collection.ts';
import { PeriodQuery, resolvePeriod } from '../platform/period.ts';
import { Badge, badgeListing } from './badges.ts';
import { TimeclockEvent, TimeclockEventInput } from './events.ts';
import { eventListing, periodInstants } from './history.ts';
import { requireOrganisationCompany } from '../tenancy/companies.ts';
import { recordEvent } from './record.ts';
import { badgesExample, clockInExample, clockInStoredExample, eventsExample } from './examples.ts';

const CompanyFilter = Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only this company of the organisation (404 when outside it).' }));

const EVENT_RULES =
  'Per person, `occurredAt` must be later than the last accepted event (`409 out_of_order`); send the next event only after the previous `200`. ' +
  'Resending an event with the same `eventId` and content returns the original `200` and stores nothing; other content is `409 event_id_conflict`. ' +
  'A punch that makes no sense (clock_out while not clocked in, …) is stored and flagged in `anomaly`. ' +
  'Unknown badge or user, or a `companyId` that is not the person\'s: `404`; inactive timeclock: `409 timeclock_inactive`; ' +
  '`occurredAt` more than 5 minutes ahead: `400 occurred_in_future`. The event is stored durably before the `200`.';

/** What the timeclock routes need of the context (src/app/feature-options.ts builds it). */
export interface TimeclockRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly companies: CompanyCache;
  readonly cursorKey: Buffer;
  readonly metrics: Pick<Metrics, 'timeclockEventAccepted'>;
}

export async function timeclockRoutes(app: App, { deps }: { deps: TimeclockRouteDeps }): Promise<void> {
  acceptJsonOnly(app);

  app.get(
    '/api/v1/timeclock/badges',
    {
      schema: {
        tags: ['timeclock'],
        operationId: 'getTimeclockBadgeCollection',
        summary: 'Badges of every user with an active timeclock in the organisation',
        description: 'Every employee of the organisation\'s companies whose timeclock is active and who has a badge, or only those of `companyId` ' +
          '(a company outside the organisation is `404`); ordered by badge id, which is unique within the organisation. ' +
          'Paged with `limit` (1 to 1000, default 500) and `cursor` (one from another query is `400 invalid_cursor`); answers `If-None-Match` with `304`.',
        security: [{ idToken: [] }],
        querystring: pagedQuery({ companyId: CompanyFilter }),
        response: pagedResponses(Badge, badgesExample, 400, 401, 404, 429),
      },
    },
    async (request, reply) => {
      const { organisationId } = request.principal;
      const { companyId } = request.query;
      if (companyId !== undefined) await requireOrganisationCompany(deps.db, organisationId, companyId);
      return replyPage(request, reply, { key: deps.cursorKey, tenant: organisationId, listing: '/api/v1/timeclock/badges' }, badgeListing(deps.db, organisationId, companyId));
    },
  );

  app.post(
    '/api/v1/timeclock/events',
    {
      schema: {
        tags: ['timeclock'],
        operationId: 'createTimeclockEvent',
        summary: 'Registers one timeclock event (punch)',
        description: EVENT_RULES,
        security: [{ idToken: [] }],
        querystring: NoQuery,
        body: withExamples(TimeclockEventInput, clockInExample),
        response: { 200: withExamples(TimeclockEvent, clockInStoredExample), ...problemResponses(400, 401, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const event = await recordEvent(deps.db, request.principal.organisationId, request.body, deps.clock.now());
      deps.metrics.timeclockEventAccepted();
      return event;
    },
  );

  app.get(
    '/api/v1/timeclock/events',
    {
      schema: {
        tags: ['timeclock'],
        operationId: 'getTimeclockEvents',
        summary: 'Reads back timeclock events by period',
        description: 'Events of the organisation that occurred on the days `from`..`to` in the token company\'s time zone (one alone means that single day; default today; ' +
          'at most 92 days, else `400 period_too_long`), ordered by occurredAt; `userId` and `companyId` narrow them (a company outside the organisation is `404`). ' +
          'A date not as YYYY-MM-DD is `400 validation_failed`, an impossible one (2026-02-30) `400 invalid_date`, `from` after `to` `400 invalid_period`, a cursor from another query `400 invalid_cursor`. ' +
          'Paged with `limit` (1 to 1000, default 500) and `cursor`; answers `If-None-Match` with `304`.',
        security: [{ idToken: [] }],
        querystring: pagedQuery({ ...PeriodQuery, userId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only this person\'s events.' })), companyId: CompanyFilter }),
        response: pagedResponses(TimeclockEvent, eventsExample, 400, 401, 404, 429),
      },
    },
    async (request, reply) => {
      const { organisationId, companyId: tokenCompanyId } = request.principal;
      const { userId, companyId } = request.query;
      if (companyId !== undefined) await requireOrganisationCompany(deps.db, organisationId, companyId);
      const { timezone } = await deps.companies.find(tokenCompanyId);
      const period = resolvePeriod(request.query, timezone, deps.clock.now());
      const filter = { ...(userId !== undefined ? { userId } : {}), ...(companyId !== undefined ? { companyId } : {}) };
      const listing = eventListing(deps.db, organisationId, periodInstants(period, timezone), filter);
      return replyPage(request, reply, { key: deps.cursorKey, tenant: organisationId, listing: '/api/v1/timeclock/events' }, listing);
    },
  );
}
