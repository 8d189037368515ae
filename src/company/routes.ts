// The company API (CONTRACT §3): every handler acts on the token's company only.
import { Type, type TSchema } from 'typebox';
import type { App } from '../platform/http.ts';
import type { AppContext } from '../platform/context.ts';
import { pageRequest, PageQuery, replyWithEtag } from '../platform/collection.ts';
import { PeriodQuery, resolvePeriod, today } from '../platform/period.ts';
import { Collection, problemResponses } from '../platform/schemas.ts';
import { Configuration, findCompany, getConfiguration } from './configuration.ts';
import { ACTIVE_OR_FUTURE_END, CompanyUser, listUsers } from './users.ts';
import { Contract, listContracts } from './contracts.ts';
import { listShifts, Shift } from './shifts.ts';
import { feedDate, TimetableFeed, timetableFeed } from './feed.ts';

const NotModified = Type.Null({ description: 'Not modified: If-None-Match matched the current ETag; empty body.' });
const NO_LIMIT = Number.POSITIVE_INFINITY;

function collectionSchema(operationId: string, summary: string, description: string, item: TSchema) {
  return {
    tags: ['company'],
    operationId,
    summary,
    description,
    security: [{ idToken: [] }],
    querystring: Type.Object({ ...PeriodQuery, ...PageQuery }, { additionalProperties: false }),
    response: { 200: Collection(item), 304: NotModified, ...problemResponses(400, 401, 429) },
  };
}

export async function companyRoutes(app: App, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get(
    '/company/configuration',
    {
      schema: {
        tags: ['company'],
        operationId: 'getConfiguration',
        summary: 'Configuration object of the company',
        security: [{ idToken: [] }],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Configuration, ...problemResponses(400, 401, 429) },
      },
    },
    async (request) => getConfiguration(ctx.db, request.principal.companyId),
  );

  app.get(
    '/company/users',
    {
      schema: collectionSchema('getCompanyUsers', 'Company users (employees)',
        'Without from/to: employees whose employment is active today or starts later. With from and/or to (one alone means that single day): employment overlapping the period. Ordered by employeeNumber, then id.', CompanyUser),
    },
    async (request, reply) => {
      const company = await findCompany(ctx.db, request.principal.companyId);
      const period = resolvePeriod(request.query, company.timezone, { maxDays: NO_LIMIT, fallback: { from: today(company.timezone), to: ACTIVE_OR_FUTURE_END } });
      const page = pageRequest(ctx.cursorKey, company.id, 'users', request.query);
      return replyWithEtag(request, reply, await listUsers(ctx.db, company, period, page));
    },
  );

  app.get(
    '/company/contracts',
    {
      schema: collectionSchema('getCompanyContracts', 'Company contracts',
        'Without from/to: contracts active today. With from and/or to: contracts overlapping the period. Ordered by startDate, then id.', Contract),
    },
    async (request, reply) => {
      const company = await findCompany(ctx.db, request.principal.companyId);
      const period = resolvePeriod(request.query, company.timezone, { maxDays: NO_LIMIT });
      const page = pageRequest(ctx.cursorKey, company.id, 'contracts', request.query);
      return replyWithEtag(request, reply, await listContracts(ctx.db, company, period, page));
    },
  );

  app.get(
    '/company/timetable',
    {
      schema: collectionSchema('getTimetable', 'The company timetable (shifts)',
        'Shifts whose date (the local day the shift starts) lies in the period; default today; at most 92 days (to ≤ from + 91). Ordered by date, startsAt, id.', Shift),
    },
    async (request, reply) => {
      const company = await findCompany(ctx.db, request.principal.companyId);
      const period = resolvePeriod(request.query, company.timezone);
      const page = pageRequest(ctx.cursorKey, company.id, 'timetable', request.query);
      return replyWithEtag(request, reply, await listShifts(ctx.db, company, period, page));
    },
  );

  app.get(
    '/feeds/timetable',
    {
      schema: {
        tags: ['feeds'],
        operationId: 'TimetableFeed',
        summary: 'Detailed timetable of one day',
        description: 'Every shift of one day (default today; from today − 8 to today + 38 in the company time zone, else 400 date_out_of_range) with its user, department, position and shift type embedded.',
        security: [{ idToken: [] }],
        querystring: Type.Object({ date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD, company time zone' })) }, { additionalProperties: false }),
        response: { 200: TimetableFeed, 304: NotModified, ...problemResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const company = await findCompany(ctx.db, request.principal.companyId);
      const date = feedDate(request.query.date, company.timezone);
      return replyWithEtag(request, reply, await timetableFeed(ctx.db, company, date));
    },
  );
}
