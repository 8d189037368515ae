// The delta endpoint's domain (CONTRACT §7): a page of a company's changes after a cursor, held
// open up to `wait` seconds until one arrives. The cursor is a signed position in the log, bound to
// the company and to the types filter it was read with (a filtered page may move past changes of
// other types, so its cursor cannot serve another filter); an unfiltered cursor serves any filter.
import { encodeCursor, type CursorScope } from '../platform/collection.ts';
import { pageRequest, readPage, type PageRequest } from '../platform/paged-collection.ts';
import { badRequest, ProblemError, queryParameter } from '../platform/errors.ts';
import type { Db } from '../platform/db/database.ts';
import { CHANGE_TYPES, type Change } from './change-log.ts';
import { readChangeWindow, watermarkBehind } from './change-reads.ts';
import { prunedThrough } from './retention.ts';
import type { ChangeNotifier } from './notifier.ts';

/** How often a waiting request looks again without a notification (a lost NOTIFY, an instance on SQLite). */
const IDLE_POLL_MS = 500;
/** How soon it looks again while some change is committed but not yet readable (the watermark is behind). */
const CATCH_UP_POLL_MS = 25;

/** The types of a `types` query parameter, checked: every one must be a change type. */
export function parseTypes(raw: string | undefined): string[] {
  const types = [...new Set((raw ?? '').split(',').map((type) => type.trim()).filter((type) => type !== ''))].sort();
  const unknown = types.filter((type) => !CHANGE_TYPES.includes(type));
  if (unknown.length > 0) {
    throw badRequest('validation_failed', `Unknown change type${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}.`, [
      { path: queryParameter('types'), message: `must be a comma-separated list of change types (${CHANGE_TYPES.join(', ')})` },
    ]);
  }
  return types;
}

function filterKey(types: readonly string[]): string {
  return types.join(',');
}

/** The change log's cursors are bound to the company, not to the query: the types filter travels in the position. */
function changesScope(key: Buffer, companyId: string): CursorScope {
  return { key, tenant: companyId, query: 'changes' };
}

/** A cursor at `seq`, for any types filter (the head of the log). */
export function headCursor(key: Buffer, companyId: string, seq: number): string {
  return encodeCursor(changesScope(key, companyId), [seq, '']);
}

/** The page a delta query asks for; its cursor a 400 when tampered, another company's, or reached with another filter. */
export function deltaPageRequest(key: Buffer, companyId: string, query: { limit?: number; cursor?: string }, types: readonly string[]): PageRequest {
  const page = pageRequest(changesScope(key, companyId), query);
  if (page.after === undefined) return page;
  const [seq, filter] = page.after;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0 || typeof filter !== 'string' || (filter !== '' && filter !== filterKey(types))) {
    throw badRequest('invalid_cursor', 'The cursor is invalid: pass nextCursor unchanged, with the same types.', [{ path: queryParameter('cursor'), message: 'is not a cursor issued for this company and these types' }]);
  }
  return page;
}

export interface DeltaRequest {
  companyId: string;
  /** Its limit, and its position: the seq it resumes after and the types filter it was reached with ('' = all). */
  page: PageRequest;
  types: readonly string[];
  waitMs: number;
  /** Ends a wait early (the client went away, the server is closing). */
  signal: AbortSignal;
}

export interface DeltaPage {
  data: Change[];
  /** Always a cursor: a log resumes even after an empty page. */
  nextCursor: string;
  hasMore: boolean;
}

async function readOnce(db: Db, request: DeltaRequest): Promise<DeltaPage> {
  const after = request.page.after;
  const afterSeq = after === undefined ? 0 : (after[0] as number);
  const filter = filterKey(request.types);
  let throughSeq = afterSeq;
  const page = await readPage(request.page, {
    rows: async (count) => {
      const window = await readChangeWindow(db, request.companyId, { afterSeq, limit: count, types: request.types });
      // Read after the page: a prune that removed rows the page should have held has raised it by now.
      // Only the horizons of the types this page selects: a pruned change of another type was never due.
      if (after && afterSeq < (await prunedThrough(db, request.companyId, request.types))) {
        throw new ProblemError({ code: 'cursor_expired', detail: 'Changes after this cursor are past retention and gone: read the collections again, then follow the changes from GET /api/v1/company/changes/head.' });
      }
      throughSeq = window.throughSeq;
      return window.changes;
    },
    position: (change) => [change.seq, filter],
    present: (change) => change,
  });
  // A full page resumes after its last change; one that is not read everything up to throughSeq, so
  // its cursor moves there (past other companies' and filtered-out changes).
  return { data: page.data, nextCursor: page.nextCursor ?? encodeCursor(request.page.scope, [Math.max(afterSeq, throughSeq), filter]), hasMore: page.nextCursor !== null };
}

/** Resolves after `ms`, at the next notification for the company, or when `signal` aborts; true when notified. */
function wake(notifier: ChangeNotifier, companyId: string, ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (notified: boolean) => {
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener('abort', aborted);
      resolve(notified);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    const unsubscribe = notifier.subscribe(companyId, () => done(true));
    signal.addEventListener('abort', aborted);
  });
}

/**
 * A page of changes after the cursor. With `waitMs`, an empty page is held until a change becomes
 * readable or the time is up. The notifier is subscribed before each read, so a commit between the
 * read and the wait still wakes it.
 */
export async function readDelta(db: Db, notifier: ChangeNotifier, request: DeltaRequest): Promise<DeltaPage> {
  const deadline = performance.now() + request.waitMs;
  for (;;) {
    let notified = false;
    const unsubscribe = notifier.subscribe(request.companyId, () => {
      notified = true;
    });
    let page: DeltaPage;
    try {
      page = await readOnce(db, request);
    } finally {
      unsubscribe();
    }
    const remaining = deadline - performance.now();
    if (page.data.length > 0 || remaining <= 0 || request.signal.aborted) return page;
    if (notified || watermarkBehind(db)) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(CATCH_UP_POLL_MS, remaining)));
      continue;
    }
    await wake(notifier, request.companyId, Math.min(IDLE_POLL_MS, remaining), request.signal);
  }
}
