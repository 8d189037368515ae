// The company API (CONTRACT §3): every handler acts on the token's company only.
import { Type, type Static, type TSchema } from 'typebox';
import type { App } from '../platform/http.ts';
import type { AppContext } from '../app/context.ts';
import type { Db } from '../platform/db/database.ts';
import { pageRequest, PageQuery, type PageRequest } from '../platform/collection.ts';
import { replyCached } from '../platform/response-cache.ts';
import { PeriodQuery, resolvePeriod, today, type Period } from '../platform/period.ts';
import { Collection, NotModified, PATTERNS, problemResponses, withExamples } from '../platform/schemas.ts';
import { Configuration, getConfiguration } from './configuration.ts';
import type { CompanySummary } from '../tenancy/companies.ts';
import { ACTIVE_OR_FUTURE_END, CompanyUser, listUsers } from './users.ts';
import { Contract, listContracts } from './contracts.ts';
import { listShifts, Shift } from './shifts.ts';
import { feedDate, TimetableFeed, timetableFeed } from './feed.ts';
import { configurationExample, contractsExample, feedExample, timetableExample, usersExample } from './examples.ts';

const NO_LIMIT = Number.POSITIVE_INFINITY;

const COMPRESSION =
  'An answer over 1 kB is sent compressed (`Content-Encoding: br` or `gzip`) when `Accept-Encoding` allows it (`Vary: Accept-Encoding`); ' +
  'each representation has its own ETag (`"…-br"`, `"…-gzip"`), and If-None-Match with any of them revalidates the same data.';

const LISTING_RULES =
  'Dates are YYYY-MM-DD in the company time zone: another shape is `400 validation_failed`, an impossible date (2026-02-30) `400 invalid_date`, `from` after `to` `400 invalid_period`. ' +
  'Paged with `limit` (1 to 1000, default 500) and `cursor` (one from another query is `400 invalid_cursor`); answers `If-None-Match` with `304`. ' +
  COMPRESSION;

type PageBody = { data: unknown[]; nextCursor: string | null };

/** A paged, period-filtered collection of the token's company: what sets one apart from the others. */
interface CollectionRoute {
  /** The path under /company, also the listing its cursors are bound to. */
  listing: string;
  operationId: string;
  summary: string;
  description: string;
  item: TSchema;
  /** A page of items, for the OpenAPI description. */
  example: PageBody;
  /** The period when from and to are absent, and the longest one allowed (default: today, 92 days). */
  period?: (timezone: string) => { maxDays?: number; fallback?: Period };
  list(db: Db, company: Static<typeof CompanySummary>, period: Period, page: PageRequest): Promise<PageBody>;
}

function collectionRoute(app: App, ctx: AppContext, route: CollectionRoute): void {
  app.get(
    `/company/${route.listing}`,
    {
      schema: {
        tags: ['company'],
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        security: [{ idToken: [] }],
        querystring: Type.Object({ ...PeriodQuery, ...PageQuery }, { additionalProperties: false }),
        response: { 200: withExamples(Collection(route.item), route.example), 304: NotModified, ...problemResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const company = await ctx.companies.find(request.principal.companyId);
      const period = resolvePeriod(request.query, company.timezone, route.period?.(company.timezone));
      const page = pageRequest(ctx.cursorKey, company.id, route.listing, request.query);
      const key = [route.listing, company.id, company.dataVersion, period.from, period.to, page.limit, request.query.cursor ?? ''].join('|');
      return replyCached(request, reply, ctx.responseCache, key, () => route.list(ctx.db, company, period, page));
    },
  );
}

export async function companyRoutes(app: App, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get(
    '/company/configuration',
    {
      schema: {
        tags: ['company'],
        operationId: 'getConfiguration',
        summary: 'Configuration object of the company',
        description: 'The token\'s company (id, name, time zone, currency, locale) and its departments, positions, shift types and contract types, ' +
          'each list ordered by name, then id. Their ids are the ones the other endpoints refer to. Takes no query parameters (an unknown one is `400 validation_failed`); answers `If-None-Match` with `304`. ' + COMPRESSION,
        security: [{ idToken: [] }],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: withExamples(Configuration, configurationExample), 304: NotModified, ...problemResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const company = await ctx.companies.find(request.principal.companyId);
      const key = ['configuration', company.id, company.dataVersion].join('|');
      return replyCached(request, reply, ctx.responseCache, key, () => getConfiguration(ctx.db, company));
    },
  );

  collectionRoute(app, ctx, {
    listing: 'users',
    operationId: 'getCompanyUsers',
    summary: 'Company users (employees)',
    description: 'Without from/to: employees whose employment is active today or starts later. With from and/or to (one alone means that single day): employment overlapping the period, of any length. Ordered by employeeNumber, then id. ' + LISTING_RULES,
    item: CompanyUser,
    example: usersExample,
    period: (timezone) => ({ maxDays: NO_LIMIT, fallback: { from: today(timezone), to: ACTIVE_OR_FUTURE_END } }),
    list: listUsers,
  });

  collectionRoute(app, ctx, {
    listing: 'contracts',
    operationId: 'getCompanyContracts',
    summary: 'Company contracts',
    description: 'Without from/to: contracts active today. With from and/or to (one alone means that single day): contracts overlapping the period, of any length. Ordered by startDate, then id. ' + LISTING_RULES,
    item: Contract,
    example: contractsExample,
    period: () => ({ maxDays: NO_LIMIT }),
    list: listContracts,
  });

  collectionRoute(app, ctx, {
    listing: 'timetable',
    operationId: 'getTimetable',
    summary: 'The company timetable (shifts)',
    description: 'Shifts whose date (the local day the shift starts) lies in the period; default today; one of from/to alone means that single day; at most 92 days (to ≤ from + 91, else `400 period_too_long`). Ordered by date, startsAt, id. ' + LISTING_RULES,
    item: Shift,
    example: timetableExample,
    list: listShifts,
  });

  app.get(
    '/feeds/timetable',
    {
      schema: {
        tags: ['feeds'],
        operationId: 'getTimetableFeed',
        summary: 'Detailed timetable of one day',
        description: 'Every shift of one day (default today; from today − 8 to today + 38 in the company time zone, else `400 date_out_of_range`; an impossible date such as 2026-02-30: `400 invalid_date`) with its user, department, position and shift type embedded, ordered by startsAt, then id. Not paged; answers `If-None-Match` with `304`. ' + COMPRESSION,
        security: [{ idToken: [] }],
        querystring: Type.Object({ date: Type.Optional(Type.String({ pattern: PATTERNS.date.pattern, description: 'YYYY-MM-DD, company time zone' })) }, { additionalProperties: false }),
        response: { 200: withExamples(TimetableFeed, feedExample), 304: NotModified, ...problemResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const company = await ctx.companies.find(request.principal.companyId);
      const date = feedDate(request.query.date, company.timezone);
      const key = ['feed', company.id, company.dataVersion, date].join('|');
      return replyCached(request, reply, ctx.responseCache, key, () => timetableFeed(ctx.db, company, date));
    },
  );
}
