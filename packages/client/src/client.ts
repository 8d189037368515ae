// The client: typed calls through openapi-fetch (types generated from /openapi.json), each one
// authorised with a cached ID token, retried as http.ts decides, and turned into an ApiError when
// the service refuses it.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.ts';
import { problemFrom } from './errors.ts';
import { DEFAULT_RETRY, sendWithRetries, type FetchFunction, type RetryPolicy } from './http.ts';
import { TokenSession } from './tokens.ts';
import { TimeclockQueue, type TimeclockQueueOptions } from './timeclock-queue.ts';
import { ChangeFeed } from './changes.ts';

export interface WfsClientOptions {
  /** The service's BASE_URL, e.g. https://wfs.example.com */
  baseUrl: string;
  /** A refresh token from the authorization-code login (`wfs login` stores one). */
  refreshToken: string;
  /** Persist each renewed refresh token here; the one you passed stops working after a grace period. */
  onRefreshToken?: (refreshToken: string) => void | Promise<void>;
  retry?: Partial<RetryPolicy>;
  renewBeforeSeconds?: number;
  timeclock?: TimeclockQueueOptions;
  /** For tests and proxies; defaults to the global fetch. */
  fetch?: FetchFunction;
  /** The clock (epoch milliseconds) the ID token's renewal is timed by; defaults to Date.now. For tests. */
  now?: () => number;
}

export type Query = Record<string, string | number | boolean | undefined>;

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type EventBody = paths['/api/v1/timeclock/events']['post']['requestBody']['content']['application/json'];
type StoredEvent = JsonOf<paths['/api/v1/timeclock/events']['post']['responses'][200]>;
/** A timeclock event to send; `eventId` is generated when absent. */
export type TimeclockEventInput = Omit<EventBody, 'eventId'> & { eventId?: string };

/** The operations answering a collection (`{data, nextCursor}`). */
export type CollectionPath = '/api/v1/company/users' | '/api/v1/company/contracts' | '/api/v1/company/timetable' | '/api/v1/company/revenue'
  | '/api/v1/company/wage-budget' | '/api/v1/timeclock/badges' | '/api/v1/timeclock/events';
/** The query parameters of a collection, without the paging ones the client handles. */
export type CollectionQuery<P extends CollectionPath> = Omit<NonNullable<paths[P]['get']['parameters']['query']>, 'cursor'>;
/** One item of a collection. */
export type ItemOf<P extends CollectionPath> = JsonOf<paths[P]['get']['responses'][200]>['data'][number];
export type RevenueItem = paths['/api/v1/company/revenue']['post']['requestBody']['content']['application/json']['items'][number];
export type WageBudgetItem = paths['/api/v1/company/wage-budget']['post']['requestBody']['content']['application/json']['items'][number];

function must<T>(result: { data?: T }): T {
  // #send throws on every failure, so a resolved call always has its data.
  return result.data as T;
}

export class WfsClient {
  /** Every operation of the API, typed (`client.api.GET('/api/v1/company/users', { params: { query } })`). */
  readonly api: Client<paths>;
  readonly tokens: TokenSession;
  /** Sends timeclock events per person, in order, one at a time (see timeclock-queue.ts). */
  readonly timeclock: TimeclockQueue<TimeclockEventInput, StoredEvent>;
  /** The company's change log: `for await (const { changes, cursor } of client.changes.follow({ cursor }))`. */
  readonly changes: ChangeFeed;
  readonly #baseUrl: string;
  readonly #fetch: FetchFunction;
  readonly #retry: RetryPolicy;

  constructor(options: WfsClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.tokens = new TokenSession({
      baseUrl: this.#baseUrl,
      refreshToken: options.refreshToken,
      onRefreshToken: options.onRefreshToken,
      renewBeforeSeconds: options.renewBeforeSeconds,
      now: options.now,
      send: (request) => sendWithRetries(this.#fetch, request, this.#retry, { idempotent: true }),
    });
    this.api = createClient<paths>({ baseUrl: this.#baseUrl, fetch: (request) => this.#send(request) });
    this.timeclock = new TimeclockQueue(
      async (event) => must(await this.api.POST('/api/v1/timeclock/events', { body: event })),
      options.timeclock,
    );
    this.changes = new ChangeFeed((path, query) => this.request('GET', path, { query }));
  }

  /** The company's configuration: departments, positions, shift types, contract types. */
  async configuration() {
    return must(await this.api.GET('/api/v1/company/configuration'));
  }

  /** The detailed timetable of one day (default: today in the company's time zone). */
  async timetableFeed(date?: string) {
    return must(await this.api.GET('/api/v1/feeds/timetable', { params: { query: date ? { date } : {} } }));
  }

  /** Every item of a collection, page after page (`for await (const user of client.pages('/api/v1/company/users'))`). */
  async *pages<P extends CollectionPath>(path: P, query?: CollectionQuery<P>): AsyncGenerator<ItemOf<P>> {
    let cursor: string | null = null;
    do {
      const page = (await this.request('GET', path, { query: { ...(query as Query | undefined), ...(cursor ? { cursor } : {}) } })) as { data: ItemOf<P>[]; nextCursor: string | null };
      yield* page.data;
      cursor = page.nextCursor;
    } while (cursor);
  }

  /** Every item of a collection in one array. */
  async list<P extends CollectionPath>(path: P, query?: CollectionQuery<P>): Promise<ItemOf<P>[]> {
    const items: ItemOf<P>[] = [];
    for await (const item of this.pages(path, query)) items.push(item);
    return items;
  }

  /** Sends a revenue batch (all-or-nothing; sending the same batch again changes nothing). */
  async createRevenue(items: RevenueItem[]) {
    return must(await this.api.POST('/api/v1/company/revenue', { body: { items } }));
  }

  /** Sends a wage-budget batch (all-or-nothing; idempotent). */
  async createWageBudget(items: WageBudgetItem[]) {
    return must(await this.api.POST('/api/v1/company/wage-budget', { body: { items } }));
  }

  /** Any operation by method and path, for tools that take them as text (`wfs api`). */
  async request(method: string, path: string, init: { query?: Query; body?: unknown } = {}): Promise<unknown> {
    const url = new URL(`${this.#baseUrl}${path.startsWith('/') ? path : `/${path}`}`);
    for (const [name, value] of Object.entries(init.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const hasBody = init.body !== undefined;
    const response = await this.#send(new Request(url, {
      method: method.toUpperCase(),
      headers: { accept: 'application/json', ...(hasBody ? { 'content-type': 'application/json' } : {}) },
      ...(hasBody ? { body: JSON.stringify(init.body) } : {}),
    }));
    const text = await response.text();
    return text === '' ? null : JSON.parse(text);
  }

  /** Sends the request with the current ID token; renews once if the service refuses that token. */
  async #send(request: Request): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.tokens.idToken();
      const authorised = new Request(request.clone(), { headers: new Headers(request.headers) });
      authorised.headers.set('authorization', `Bearer ${token}`);
      const response = await sendWithRetries(this.#fetch, authorised, this.#retry);
      if (response.status === 401 && attempt === 0) {
        // Revoked early, or this machine's clock runs behind: a fresh token settles it.
        await response.body?.cancel();
        this.tokens.discard(token);
        continue;
      }
      if (!response.ok && response.status !== 304) throw await problemFrom(response);
      return response;
    }
  }
}
