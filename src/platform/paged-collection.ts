// The one way to answer a paged listing (contract: secured company API, collections): `limit` and an
// opaque cursor in, `{data, nextCursor}` out. A feature says what it lists — a `Listing`: its rows
// after a position, each row's position, how a row is shown — and whose listing it is (a
// `CursorBinding`); this module reads the page request, asks for one row more than the page shows
// (to know whether another page follows), signs the next cursor and answers with an ETag (an empty
// 304 on If-None-Match), or from the response cache. Listings answered otherwise (the webhooks',
// whose page needs the endpoint found first; the change log, with its long poll and a cursor on every
// page) use `pageRequest` and `readPage` and add their own.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TProperties, type TSchema } from 'typebox';
import { decodeCursor, encodeCursor, replyWithEtag, type CursorScope, type SortKey } from './collection.ts';
import { replyCached, type ResponseCache } from './response-cache.ts';
import { Collection, NotModified, problemResponses, withExamples } from './schemas.ts';

const DEFAULT_PAGE_SIZE = 500;

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_PAGE_SIZE, description: 'Page size, 1 to 1000.' })),
  cursor: Type.Optional(Type.String({ maxLength: 2000, description: 'Opaque cursor from a previous page\'s nextCursor.' })),
};

/** A listing's query string: its own filters, then `limit` and `cursor`; any other parameter is a 400. */
export function pagedQuery<Filters extends TProperties>(filters: Filters) {
  return Type.Object({ ...filters, ...PageQuery }, { additionalProperties: false });
}

/** The answers of a listing replied with `replyPage`: a page (with its OpenAPI example), 304, and the problems. */
export function pagedResponses(item: TSchema, example: unknown, ...problems: number[]): Record<number, TSchema> {
  return { 200: withExamples(Collection(item), example), 304: NotModified, ...problemResponses(...problems) };
}

/** What a paged listing shows, after any position. */
export interface Listing<Row, Item> {
  /** At most `count` rows strictly after `after` (from the first when undefined), in the listing's order. */
  rows(count: number, after: SortKey | undefined): Promise<Row[]>;
  /** A row's position: its values of the columns the listing is ordered by, in that order. */
  position(row: Row): SortKey;
  present(row: Row): Item;
}

/** Whose listing it is and which: its cursors are signed with `key` and serve only `tenant`'s `listing`. */
export interface CursorBinding {
  key: Buffer;
  /** The company (or organisation) the listing belongs to. */
  tenant: string;
  /** The listing's name, its path. */
  listing: string;
}

/** The page a request asks for: its size, where it resumes, and the scope that binds its cursors. */
export interface PageRequest {
  limit: number;
  after: SortKey | undefined;
  scope: CursorScope;
}

export interface Page<Item> {
  data: Item[];
  /** The cursor of the next page; null on the last one. */
  nextCursor: string | null;
}

/**
 * The scope of a collection's cursors: the tenant, the listing and every parameter but `limit` and
 * `cursor` as sent, so a cursor only resumes the very listing it came from.
 */
function collectionScope(binding: CursorBinding, query: Record<string, unknown>): CursorScope {
  const { limit: _limit, cursor: _cursor, ...filters } = query;
  const parameters = Object.entries(filters).flatMap(([name, value]): [string, string][] => (value === undefined ? [] : [[name, typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean)]])).sort();
  return { key: binding.key, tenant: binding.tenant, query: `${binding.listing}?${new URLSearchParams(parameters).toString()}` };
}

/** Reads `limit` and `cursor` from a validated query; a cursor not issued within `scope` is a 400. */
export function pageRequest(scope: CursorScope, query: { limit?: unknown; cursor?: unknown }): PageRequest {
  const { limit, cursor } = query;
  return { limit: typeof limit === 'number' ? limit : DEFAULT_PAGE_SIZE, after: typeof cursor === 'string' ? decodeCursor(scope, cursor) : undefined, scope };
}

/** The page a collection's validated query asks for, its cursor checked against `binding` and the query's other parameters. */
export function collectionPageRequest(binding: CursorBinding, query: Record<string, unknown>): PageRequest {
  return pageRequest(collectionScope(binding, query), query);
}

/** The requested page of `listing`, with the cursor of the next page when more rows follow it. */
export async function readPage<Row, Item>(page: PageRequest, listing: Listing<Row, Item>): Promise<Page<Item>> {
  const rows = await listing.rows(page.limit + 1, page.after);
  const more = rows.length > page.limit;
  const shown = more ? rows.slice(0, page.limit) : rows;
  const last = shown.at(-1);
  return { data: shown.map((row) => listing.present(row)), nextCursor: more && last !== undefined ? encodeCursor(page.scope, listing.position(last)) : null };
}

/** A response-cache entry's key: everything the page depends on besides the listing, the tenant, `limit` and `cursor` (the data version first). */
export interface PageCache {
  store: ResponseCache;
  key: ReadonlyArray<string | number>;
}

/**
 * Answers the page of `listing` the request asks for, with its ETag (an empty 304 when If-None-Match
 * matches). With `cache`, from the response cache: a miss reads and stores the page. An invalid
 * cursor is a 400 before either.
 */
export async function replyPage<Row, Item>(request: FastifyRequest, reply: FastifyReply, binding: CursorBinding, listing: Listing<Row, Item>, cache?: PageCache): Promise<FastifyReply> {
  const query = request.query as Record<string, unknown>;
  const page = collectionPageRequest(binding, query);
  if (!cache) return replyWithEtag(request, reply, await readPage(page, listing));
  const key = [binding.listing, binding.tenant, ...cache.key, page.limit, typeof query.cursor === 'string' ? query.cursor : ''].join('|');
  await replyCached(request, reply, cache.store, key, () => readPage(page, listing));
  return reply;
}
