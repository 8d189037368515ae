// The delta endpoint (CONTRACT §7): GET /api/v1/company/changes and /changes/head, secured like the
// other company operations (registered in the secured tree, under its /api/v1 prefix). Parse, read
// the log (delta.ts), reply.
import { Type, type Static } from 'typebox';
import type { App } from '../platform/http.ts';
import type { Db } from '../platform/db/database.ts';
import type { ChangeNotifier } from './notifier.ts';
import { NoQuery, problemResponses, sentNotStored, withExamples } from '../platform/schemas.ts';
import { PageQuery } from '../platform/paged-collection.ts';
import { CHANGE_TYPES } from './change-log.ts';
import { readableSeq } from './change-reads.ts';
import { deltaPageRequest, headCursor, parseTypes, readDelta } from './delta.ts';
import { changesExample, headExample } from './examples.ts';

const MAX_WAIT_SECONDS = 30;

/**
 * The change log's answers are kept by no cache, unlike the other reads' (`private, no-cache`): a
 * page is read once and then followed by its cursor, never asked again to be revalidated (it has no
 * ETag), a long poll's answer is of its moment, and a page may hold personal data since deleted
 * (tombstoned), which should not outlive it in a browser or proxy cache.
 */
const NOT_STORED = 'no-store';
const NOT_STORED_WHY = 'a page is read once and followed by its cursor; it may hold data since deleted.';

export const ChangeSchema = Type.Object({
  seq: Type.Integer({ description: 'Grows with commit order within the company (gaps allowed).' }),
  id: Type.String({ description: 'Stable and unique; also the `webhook-id` of the change\'s webhook messages.' }),
  type: Type.String({ description: '`<resourceType>.<created|updated|deleted>`', enum: [...CHANGE_TYPES] }),
  resourceType: Type.String({ enum: ['user', 'contract', 'shift', 'department', 'position', 'shift_type', 'contract_type', 'revenue_item', 'wage_budget_item', 'timeclock_event'] }),
  resourceId: Type.String(),
  occurredAt: Type.String({ format: 'date-time', description: 'When the change was made, in the company offset.' }),
  deleted: Type.Boolean({ description: 'true for a tombstone: the resource is gone.' }),
  data: Type.Unknown({
    description: 'The resource as its collection shows it right after the change (CompanyUser, Contract, Shift, the configuration\'s department, position, shift type or contract type, RevenueItem, WageBudgetItem, TimeclockEvent); null when deleted.',
  }),
});

const ChangesPage = Type.Object({
  data: Type.Array(ChangeSchema, { description: 'Changes in seq order.' }),
  nextCursor: Type.String({ description: 'Always present: resume from it, even after an empty page. Persist it.' }),
  hasMore: Type.Boolean({ description: 'true when more changes are readable now: ask again at once. An empty page always has false.' }),
});

const ChangesQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 2000, description: 'nextCursor of a previous page, or the cursor of /changes/head. Without it: from the oldest change kept.' })),
    limit: PageQuery.limit,
    types: Type.Optional(Type.String({ maxLength: 2000, description: `Comma-separated change types to keep (${CHANGE_TYPES.join(', ')}); another value is \`400\`.` })),
    wait: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0, description: 'Seconds (0 to 30) to hold an empty answer until a change arrives (long poll).' })),
  },
  { additionalProperties: false },
);

const DESCRIPTION =
  'The company\'s change log after the cursor, in seq order: every user, contract, shift, department, position, shift type and contract type created, updated or deleted ' +
  '(by import or operator), revenue and wage-budget items created or updated, timeclock events stored. `data` is the resource as its collection shows it, `null` for a deletion (tombstone). ' +
  'Following nextCursor sees every change committed after it exactly once, in seq order, also while several instances write at once. ' +
  'With `wait`, an empty answer is held until a change arrives (within 1 second of its commit) or the time is up. ' +
  'A cursor that is tampered with, another company\'s, or was read with other `types` is `400 invalid_cursor`; ' +
  'one some pruned change (older than CHANGES_RETENTION_SECONDS) would still have had to return is `410 cursor_expired`: read the collections again, then follow from /changes/head. ' +
  'Only changes of the types the request reads (all without `types`) count: a pruned change of another type never expires a filtered cursor.';

/** What the change-log routes need of the context (src/app/feature-options.ts builds it). */
export interface ChangeRouteDeps {
  readonly db: Db;
  readonly cursorKey: Buffer;
  readonly changeNotifier: ChangeNotifier;
}

export async function changeRoutes(app: App, { deps }: { deps: ChangeRouteDeps }): Promise<void> {
  // A waiting request must not hold a shutdown for up to 30 seconds: it answers its empty page now.
  const closing = new AbortController();
  app.addHook('preClose', (done) => {
    closing.abort();
    done();
  });

  app.get(
    '/api/v1/company/changes',
    {
      schema: {
        tags: ['changes'],
        operationId: 'getCompanyChanges',
        summary: 'Changes of the company since a cursor (delta, with tombstones; long poll)',
        description: DESCRIPTION,
        security: [{ idToken: [] }],
        querystring: ChangesQuery,
        response: { 200: sentNotStored(withExamples(ChangesPage, changesExample), NOT_STORED_WHY), ...problemResponses(400, 401, 410, 429) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', NOT_STORED);
      const { companyId } = request.principal;
      const query: Static<typeof ChangesQuery> = request.query;
      const types = parseTypes(query.types);
      const page = deltaPageRequest(deps.cursorKey, companyId, query, types);
      const gone = new AbortController();
      // The response closing before it was sent: the client went away, nobody waits for the answer.
      reply.raw.once('close', () => gone.abort());
      const delta = await readDelta(deps.db, deps.changeNotifier, {
        companyId,
        page,
        types,
        waitMs: (query.wait ?? 0) * 1000,
        signal: AbortSignal.any([gone.signal, closing.signal]),
      });
      // Answered because the server is closing: the connection must not stay open for keep-alive.
      if (closing.signal.aborted) reply.header('connection', 'close');
      return delta;
    },
  );

  app.get(
    '/api/v1/company/changes/head',
    {
      schema: {
        tags: ['changes'],
        operationId: 'getCompanyChangesHead',
        summary: 'A cursor at the newest change',
        description: 'Take it before a full read of the collections, then follow GET /api/v1/company/changes from it: nothing committed after it is missed. Takes no query parameters.',
        security: [{ idToken: [] }],
        querystring: NoQuery,
        response: { 200: sentNotStored(withExamples(Type.Object({ cursor: Type.String() }), headExample), 'the newest position of this moment.'), ...problemResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', NOT_STORED);
      return { cursor: headCursor(deps.cursorKey, request.principal.companyId, await readableSeq(deps.db)) };
    },
  );
}
