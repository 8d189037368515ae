// The company API (contract: secured company API): every handler acts on the token's company only.
import { Type, type TSchema } from 'typebox';
import type { App } from '../platform/http.ts';
import type { Db } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { CompanyCache } from '../tenancy/company-cache.ts';
import type { ResponseCache } from '../platform/response-cache.ts';
import type { CachedAnswerer } from '../platform/cached-answer-lane.ts';
import type { Principal } from '../tenancy/principal.ts';
import type { SortKey } from '../platform/collection.ts';
import { pagedQuery, pagedResponses, replyPage, type Listing } from '../platform/paged-collection.ts';
import { replyCached } from '../platform/response-cache.ts';
import { PeriodQuery, resolvePeriod, today, type Period } from '../platform/period.ts';
import { NoQuery, NotModified, PATTERNS, problemResponses, withExamples } from '../platform/schemas.ts';
import type { CompanyRecord } from '../tenancy/companies.ts';
import { Configuration, getConfiguration } from './configuration.ts';
import { ACTIVE_OR_FUTURE_END, CompanyUser, presentUser, userPosition, usersQuery } from './users.ts';
import { Contract, contractPosition, contractsQuery, presentContract } from './contracts.ts';
import { presentShift, Shift, shiftPosition, shiftsQuery } from './shifts.ts';
import { feedDate, TimetableFeed, timetableFeed, windowDate } from './feed.ts';
import { configurationExample, contractsExample, feedExample, timetableExample, usersExample } from './examples.ts';

/** What the company routes need of the context (src/app/feature-options.ts builds it). */
export interface CompanyRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly companies: CompanyCache;
  readonly cursorKey: Buffer;
  readonly responseCache: ResponseCache;
}

/** How the secured API's cached-answer lane takes this feature's answerers (undefined: no lane). */
export type CachedAnswers = (path: string, answerer: CachedAnswerer<Principal>) => void;

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
interface CollectionRoute<Row> {
  /** The route's full path, also the listing its cursors are bound to. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  item: TSchema;
  /** A page of items, for the OpenAPI description. */
  example: PageBody;
  /** The period when from and to are absent, and the longest one allowed (default: today, 92 days). */
  period?: (timezone: string, now: number) => { maxDays?: number; fallback?: Period };
  /** The company's rows of the period after a position, in the listing's order. */
  query: (db: Db, companyId: string, period: Period, after: SortKey | undefined) => { limit(count: number): { execute(): Promise<Row[]> } };
  position: (row: Row) => SortKey;
  present: (row: Row, timezone: string) => unknown;
}

function collectionRoute<Row>(app: App, deps: CompanyRouteDeps, route: CollectionRoute<Row>): void {
  app.get(
    route.path,
    {
      schema: {
        tags: ['company'],
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        security: [{ idToken: [] }],
        querystring: pagedQuery(PeriodQuery),
        response: pagedResponses(route.item, route.example, 400, 401, 429),
      },
    },
    async (request, reply) => {
      const company = await deps.companies.find(request.principal.companyId);
      const now = deps.clock.now();
      const period = resolvePeriod(request.query, company.timezone, now, route.period?.(company.timezone, now));
      const listing: Listing<Row, unknown> = {
        rows: (count, after) => route.query(deps.db, company.id, period, after).limit(count).execute(),
        position: route.position,
        present: (row) => route.present(row, company.timezone),
      };
      const binding = { key: deps.cursorKey, tenant: company.id, listing: route.path };
      return replyPage(request, reply, binding, listing, { store: deps.responseCache, key: [company.dataVersion, period.from, period.to] });
    },
  );
}

const configurationKey = (company: CompanyRecord) => `configuration|${company.id}|${company.dataVersion}`;
const feedKey = (company: CompanyRecord, date: string) => `feed|${company.id}|${company.dataVersion}|${date}`;
/** The feed's query as the cached-answer lane takes it: exactly one `date`, written as a day. */
const FEED_QUERY = /^date=(\d{4}-\d{2}-\d{2})$/;

export async function companyRoutes(app: App, { deps, cachedAnswers }: { deps: CompanyRouteDeps; cachedAnswers: CachedAnswers | undefined }): Promise<void> {
  app.get(
    '/api/v1/company/configuration',
    {
      schema: {
        tags: ['company'],
        operationId: 'getConfiguration',
        summary: 'Configuration object of the company',
        description: 'The token\'s company (id, name, time zone, currency, locale) and its departments, positions, shift types and contract types, ' +
          'each list ordered by name, then id. Their ids are the ones the other endpoints refer to. Takes no query parameters (an unknown one is `400 validation_failed`); answers `If-None-Match` with `304`. ' + COMPRESSION,
        security: [{ idToken: [] }],
        querystring: NoQuery,
        response: { 200: withExamples(Configuration, configurationExample), 304: NotModified, ...problemResponses(400, 401, 429) },
      },
    },
    // Not async: a cached company and answer are sent without a promise (response-cache.ts).
    (request, reply) => {
      const answer = (company: CompanyRecord) => {
        return replyCached(request, reply, deps.responseCache, configurationKey(company), () => getConfiguration(deps.db, company));
      };
      const company = deps.companies.find(request.principal.companyId);
      return company instanceof Promise ? company.then(answer) : answer(company);
    },
  );

  collectionRoute(app, deps, {
    path: '/api/v1/company/users',
    operationId: 'getCompanyUsers',
    summary: 'Company users (employees)',
    description: 'Without from/to: employees whose employment is active today or starts later. With from and/or to (one alone means that single day): employment overlapping the period, of any length. Ordered by employeeNumber, then id. ' + LISTING_RULES,
    item: CompanyUser,
    example: usersExample,
    period: (timezone, now) => ({ maxDays: NO_LIMIT, fallback: { from: today(timezone, now), to: ACTIVE_OR_FUTURE_END } }),
    query: usersQuery,
    position: userPosition,
    present: presentUser,
  });

  collectionRoute(app, deps, {
    path: '/api/v1/company/contracts',
    operationId: 'getCompanyContracts',
    summary: 'Company contracts',
    description: 'Without from/to: contracts active today. With from and/or to (one alone means that single day): contracts overlapping the period, of any length. Ordered by startDate, then id. ' + LISTING_RULES,
    item: Contract,
    example: contractsExample,
    period: () => ({ maxDays: NO_LIMIT }),
    query: contractsQuery,
    position: contractPosition,
    present: presentContract,
  });

  collectionRoute(app, deps, {
    path: '/api/v1/company/timetable',
    operationId: 'getTimetable',
    summary: 'The company timetable (shifts)',
    description: 'Shifts whose date (the local day the shift starts) lies in the period; default today; one of from/to alone means that single day; at most 92 days (to ≤ from + 91, else `400 period_too_long`). Ordered by date, startsAt, id. ' + LISTING_RULES,
    item: Shift,
    example: timetableExample,
    query: shiftsQuery,
    position: shiftPosition,
    present: presentShift,
  });

  app.get(
    '/api/v1/feeds/timetable',
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
    // Not async, as the configuration above.
    (request, reply) => {
      const answer = (company: CompanyRecord) => {
        const date = feedDate(request.query.date, company.timezone, deps.clock.now());
        return replyCached(request, reply, deps.responseCache, feedKey(company, date), () => timetableFeed(deps.db, company, date));
      };
      const company = deps.companies.find(request.principal.companyId);
      return company instanceof Promise ? company.then(answer) : answer(company);
    },
  );

  // The same answers from the cache without Fastify's lifecycle, when they are ready (cached-answer-lane.ts).
  cachedAnswers?.('/api/v1/company/configuration', (principal, query) => {
    const company = query === undefined ? deps.companies.fresh(principal.companyId) : undefined;
    return company && deps.responseCache.get(configurationKey(company));
  });
  cachedAnswers?.('/api/v1/feeds/timetable', (principal, query) => {
    const requested = query === undefined ? undefined : FEED_QUERY.exec(query)?.[1];
    const company = query === undefined || requested ? deps.companies.fresh(principal.companyId) : undefined;
    const date = company && windowDate(requested, company.timezone, deps.clock.now());
    return company && date ? deps.responseCache.get(feedKey(company, date)) : undefined;
  });
}
