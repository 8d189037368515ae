// Following the company's change log (GET /api/v1/company/changes): page after page while changes
// are there, then long polls that answer as soon as one commits. Each page hands back the cursor
// to persist once its changes are applied; restarting from it sees every later change exactly once.

import type { operations } from './schema.ts';

/** A page of the change log as the service answers it (generated from the OpenAPI document). */
type ChangesAnswer = operations['getCompanyChanges']['responses'][200]['content']['application/json'];

/** One change of the log; `data` is the resource as its collection shows it, null when deleted. */
export type Change = ChangesAnswer['data'][number];

export interface ChangePage {
  /** In seq order; empty when a long poll ended without a change. */
  changes: Change[];
  /** Persist it after applying `changes`; pass it as `cursor` to resume. */
  cursor: string;
}

export interface FollowOptions {
  /** Where to resume: a persisted cursor, or one from head(). Without it: from the oldest change kept. */
  cursor?: string;
  /** Only these change types (`shift.deleted`, …). A cursor serves the types it was read with. */
  types?: readonly string[];
  /** Page size, 1 to 1000 (default 1000). */
  limit?: number;
  /** Seconds each long poll waits for a change (0 to 30, default 30). */
  wait?: number;
  /** Ends the iteration (after the request in flight). */
  signal?: AbortSignal;
}

type Get = (path: string, query: Record<string, string | number | undefined>) => Promise<unknown>;

export class ChangeFeed {
  readonly #get: Get;

  constructor(get: Get) {
    this.#get = get;
  }

  /** A cursor at the newest change: take it before reading the collections, then follow from it. */
  async head(): Promise<string> {
    return ((await this.#get('/api/v1/company/changes/head', {})) as { cursor: string }).cursor;
  }

  /**
   * Yields every page of changes after the cursor, forever (until `signal` aborts or the loop
   * breaks): at once while more are readable, then by long polls. An empty page (a poll that timed
   * out) still moves the cursor on: persisting it keeps it within the retention. A cursor past the
   * retention throws ApiError with code `cursor_expired`: read the collections again, then head().
   */
  async *follow(options: FollowOptions = {}): AsyncGenerator<ChangePage> {
    let cursor = options.cursor;
    let more = true;
    while (!options.signal?.aborted) {
      const page = (await this.#get('/api/v1/company/changes', {
        cursor,
        limit: options.limit ?? 1000,
        types: options.types && options.types.length > 0 ? options.types.join(',') : undefined,
        // No wait while pages are full: the next one is already there.
        wait: more ? 0 : (options.wait ?? 30),
      })) as ChangesAnswer;
      cursor = page.nextCursor;
      more = page.hasMore;
      yield { changes: page.data, cursor };
    }
  }
}
