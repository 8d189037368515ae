// Inbound batches (contract: secured company API): POST a batch of revenue or wage-budget figures, GET them back by
// period. Both streams share one route shape; they differ in item fields and validation rules.
// The scope accepts only JSON, parsed keeping each number's text so amounts are read exactly.
import { Type, type TSchema } from 'typebox';
import { acceptJsonOnly, type App } from '../platform/http.ts';
import { compiledCheck } from '../platform/validation.ts';
import { plainJson, type JsonBodyParser } from '../platform/json-body.ts';
import { badRequest } from '../platform/errors.ts';
import type { Db } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { CompanyCache } from '../tenancy/company-cache.ts';
import { NoQuery, problemResponses, withExamples } from '../platform/schemas.ts';
import { pagedQuery, pagedResponses, replyPage } from '../platform/paged-collection.ts';
import { PeriodQuery, resolvePeriod } from '../platform/period.ts';
import { MAX_BATCH_ITEMS, batchTooLarge, ingestBatch, type BatchItem, type StreamRules } from './batch.ts';
import { BatchOutcome, figureListing, type FigureRow } from './figures.ts';
import { parseJsonKeepingNumbers } from './exact-json.ts';
import { RevenueItem, RevenueItemInput, RevenueKind, presentRevenue, revenueRules } from './revenue.ts';
import { WageBudgetItem, WageBudgetItemInput, presentWageBudget, wageBudgetRules } from './wage-budget.ts';
import * as examples from './examples.ts';

/** What the inbound routes need of the context (src/app/feature-options.ts builds it). */
export interface InboundRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly companies: CompanyCache;
  readonly cursorKey: Buffer;
}

interface StreamRoutes<Item extends BatchItem> {
  path: string;
  noun: string;
  createOperationId: string;
  listOperationId: string;
  output: TSchema;
  /** Filters beyond period and department. */
  filters: Record<string, TSchema>;
  rules: StreamRules<Item>;
  present(row: FigureRow, timezone: string): unknown;
  /** For the OpenAPI description: a batch, its outcome and a page read back. */
  examples: { batch: unknown; outcome: unknown; page: unknown };
}

interface ListQuery {
  from?: string;
  to?: string;
  departmentId?: string;
  kind?: string;
}

const BATCH_RULES =
  `A batch holds 1 to ${MAX_BATCH_ITEMS} items (more: \`400 batch_too_large\`) and is all-or-nothing: when any item is bad the answer is ` +
  '`400` listing every bad item by JSON path (`/items/3/amount`), whatever is wrong with each, and nothing is stored. The code: `validation_failed` when any field of any item has the wrong type or format ' +
  '(`amount: "12"`, an unknown `kind`), even if every other problem is a broken rule — it takes precedence; else `invalid_batch` for broken rules only: an unknown department, not exactly one of `date` and `week`, more than 2 decimals, or two items with the same key. ' +
  'Amounts are stored exactly. Sending the same batch again creates and updates nothing. A body over 2 MiB is `413`, one not sent as application/json (UTF-8) `415`; ' +
  'a body with more values than 5,000 items can hold is refused unread (`400 validation_failed`).';

const LIST_RULES =
  'Items whose day lies in `from`..`to` (one alone means that single day; default today; at most 92 days, else `400 period_too_long`), and week items ' +
  'whose ISO week overlaps it; ordered by first day, then id. A date not as YYYY-MM-DD is `400 validation_failed`, an impossible one (2026-02-30) `400 invalid_date`, `from` after `to` `400 invalid_period`, ' +
  'a cursor from another query `400 invalid_cursor`. Paged with `limit` (1 to 1000, default 500) and `cursor`; answers `If-None-Match` with `304`.'

/**
 * What Fastify checks of a batch body: the envelope only. The items are checked one by one by
 * ingestBatch against the same item schema the route documents, so that 5,000 bad items are found
 * and put into words in slices with turns of the event loop between them, each distinct problem
 * worded once — the whole body at once took ~50 ms of one turn on a loaded machine (CONTRACT §4).
 */
const BatchEnvelope = Type.Object({ items: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_BATCH_ITEMS }) }, { additionalProperties: false });
const checkEnvelope = compiledCheck(BatchEnvelope);

function registerStream<Item extends BatchItem>(app: App, deps: InboundRouteDeps, spec: StreamRoutes<Item>): void {
  app.post(
    spec.path,
    {
      schema: {
        tags: ['inbound'],
        operationId: spec.createOperationId,
        summary: `Stores a batch of ${spec.noun} items (upsert)`,
        description: BATCH_RULES,
        security: [{ idToken: [] }],
        querystring: NoQuery,
        body: withExamples(Type.Object({ items: Type.Array(spec.rules.input, { minItems: 1, maxItems: MAX_BATCH_ITEMS }) }, { additionalProperties: false }), spec.examples.batch),
        response: { 200: withExamples(BatchOutcome, spec.examples.outcome), ...problemResponses(400, 401, 413, 415, 429) },
      },
      // Counted before the items are validated one by one, so an oversized batch gets its own code.
      preValidation: async (request) => {
        const items = (request.body as { items?: unknown } | null)?.items;
        if (Array.isArray(items) && items.length > MAX_BATCH_ITEMS) batchTooLarge(items.length);
      },
      // A body that is no batch at all (null, say) is refused by this alone, its items unread.
      validatorCompiler: ({ httpPart }) => (httpPart === 'body' ? checkEnvelope : compiledCheck(NoQuery)),
      // Every answer here is an object built whole (the outcome, or a problem listing every bad
      // item: 45,000 errors for 5,000 items of unknown fields). The compiled serializer escaped
      // such a list character by character into one long rope, in one turn of the loop; JSON.stringify
      // writes it natively, and flat, so its byte length comes cheap too.
      serializerCompiler: () => (data: unknown) => JSON.stringify(data),
    },
    async (request) => ingestBatch(deps.db, request.principal.companyId, spec.rules, request.body.items, { now: deps.clock.now() }),
  );

  app.get(
    spec.path,
    {
      schema: {
        tags: ['inbound'],
        operationId: spec.listOperationId,
        summary: `Reads back stored ${spec.noun} items by period`,
        description: LIST_RULES,
        security: [{ idToken: [] }],
        querystring: pagedQuery({ ...PeriodQuery, departmentId: Type.Optional(Type.String({ maxLength: 100 })), ...spec.filters }),
        response: pagedResponses(spec.output, spec.examples.page, 400, 401, 429),
      },
    },
    async (request, reply) => {
      const query = request.query as ListQuery;
      const companyId = request.principal.companyId;
      const { timezone } = await deps.companies.find(companyId);
      const period = resolvePeriod(query, timezone, deps.clock.now());
      const filter = { ...period, ...(query.departmentId ? { departmentId: query.departmentId } : {}), ...(query.kind ? { kind: query.kind } : {}) };
      const listing = figureListing(deps.db, companyId, spec.rules.stream, filter, (row) => spec.present(row, timezone));
      return replyPage(request, reply, { key: deps.cursorKey, tenant: companyId, listing: spec.path }, listing);
    },
  );
}

/** Values a batch can hold at most: the body, its items array, each item and each of its fields. */
const MAX_BATCH_VALUES = 2 + MAX_BATCH_ITEMS * (1 + Math.max(...[RevenueItemInput, WageBudgetItemInput].map((item) => Object.keys(item.properties).length)));

/**
 * Sizes a batch before parsing it (CONTRACT §4): more than MAX_BATCH_ITEMS items, or more values
 * than any valid batch holds (a million zeros, items padded with fields), is refused unparsed.
 */
function batchParser(app: App): JsonBodyParser {
  const plain = plainJson(app);
  return (text, shape, request) => {
    if (shape.countedLength !== undefined && shape.countedLength > MAX_BATCH_ITEMS) batchTooLarge(shape.countedLength);
    if (shape.commas >= MAX_BATCH_VALUES) {
      throw badRequest('validation_failed', `The body holds more values than a batch of ${MAX_BATCH_ITEMS} items can (at most ${MAX_BATCH_VALUES}).`, [
        { path: '/', message: `must be {"items": [...]} with at most ${MAX_BATCH_ITEMS} items of the documented fields` },
      ]);
    }
    return parseJsonKeepingNumbers(text, shape, (marked) => plain(marked, shape, request));
  };
}

export async function inboundRoutes(app: App, { deps }: { deps: InboundRouteDeps }): Promise<void> {
  acceptJsonOnly(app, batchParser(app), { counted: 'items' });
  registerStream(app, deps, {
    path: '/api/v1/company/revenue',
    noun: 'revenue',
    createOperationId: 'createRevenue',
    listOperationId: 'getRevenue',
    output: RevenueItem,
    filters: { kind: Type.Optional(RevenueKind) },
    rules: revenueRules,
    present: presentRevenue,
    examples: { batch: examples.revenueBatchExample, outcome: examples.revenueOutcomeExample, page: examples.revenueListExample },
  });
  registerStream(app, deps, {
    path: '/api/v1/company/wage-budget',
    noun: 'wage budget',
    createOperationId: 'createWageBudget',
    listOperationId: 'getWageBudget',
    output: WageBudgetItem,
    filters: {},
    rules: wageBudgetRules,
    present: presentWageBudget,
    examples: { batch: examples.wageBudgetBatchExample, outcome: examples.wageBudgetOutcomeExample, page: examples.wageBudgetListExample },
  });
}
