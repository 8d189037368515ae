// Collections (contract: secured company API): `{data, nextCursor}`, keyset-paged with `limit` and an opaque cursor.
// A cursor is HMAC-signed with a key shared through the database, and bound to the company and the
// query it came from, so a changed or transplanted cursor is a 400, never another tenant's page.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql, type RawBuilder } from 'kysely';
import { Type } from 'typebox';
import { badRequest, queryParameter } from './errors.ts';

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 500, description: 'Page size, 1 to 1000.' })),
  cursor: Type.Optional(Type.String({ maxLength: 2000, description: 'Opaque cursor from a previous page\'s nextCursor.' })),
};

export type SortKey = ReadonlyArray<string | number>;

export interface CursorScope {
  key: Buffer;
  /** The company (or organisation) the listing belongs to. */
  tenant: string;
  /** Everything else that defines the listing (path, filters, period). */
  query: string;
}

function fingerprint(scope: CursorScope): string {
  return createHash('sha256').update(`${scope.tenant}\n${scope.query}`).digest('base64url').slice(0, 16);
}

function sign(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, 16);
}

export function encodeCursor(scope: CursorScope, position: SortKey): string {
  const payload = Buffer.from(JSON.stringify([fingerprint(scope), position])).toString('base64url');
  return `${payload}.${sign(scope.key, payload).toString('base64url')}`;
}

export function decodeCursor(scope: CursorScope, cursor: string): SortKey {
  const invalid = () => badRequest('invalid_cursor', 'The cursor is invalid: pass nextCursor unchanged, with the same filters.', [{ path: queryParameter('cursor'), message: 'is not a cursor issued for this query' }]);
  const [payload, mac] = cursor.split('.');
  if (!payload || !mac) throw invalid();
  const expected = sign(scope.key, payload);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(decoded) || decoded[0] !== fingerprint(scope) || !Array.isArray(decoded[1])) throw invalid();
  return decoded[1] as SortKey;
}

/**
 * Given rows fetched with `limit + 1`, returns the page and the cursor of the next one.
 * `position` extracts a row's sort key (the same columns, in order, that the query sorts by).
 */
export function toPage<Row, Item>(rows: Row[], limit: number, scope: CursorScope, position: (row: Row) => SortKey, present: (row: Row) => Item): { data: Item[]; nextCursor: string | null } {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { data: pageRows.map(present), nextCursor: more && last !== undefined ? encodeCursor(scope, position(last)) : null };
}

/**
 * Answers a 200 collection with a strong ETag computed from the body as serialised by the route's
 * response schema (hashing what is sent, not serialising twice), or an empty 304 when If-None-Match
 * matches it, so a client polling an unchanged collection downloads nothing.
 */
export function replyWithEtag(request: FastifyRequest, reply: FastifyReply, body: unknown): FastifyReply {
  const text = serialised(reply, body);
  return sendWithEtag(request, reply, text, etagOf(text));
}

/** The route's response-schema serialiser applied to a 200 body, as Fastify would apply it. */
export function serialised(reply: FastifyReply, body: unknown): string {
  const text: unknown = reply.serialize(body);
  return typeof text === 'string' ? text : Buffer.from(text as ArrayBuffer).toString('utf8');
}

/** A strong validator of a serialised body. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether If-None-Match names `etag` or another representation of the same body (the tag with a
 * `-br` or `-gzip` coding suffix, see response-cache.ts); weak comparison, as RFC 9110 asks for.
 */
export function etagMatches(header: string | undefined, etag: string): boolean {
  return header !== undefined && header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '').replace(/-(br|gzip)"$/, '"') === etag;
  });
}

/** Sends a serialised JSON body with its ETag, or an empty 304 when If-None-Match matches. */
function sendWithEtag(request: FastifyRequest, reply: FastifyReply, body: string, etag: string): FastifyReply {
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(body);
}

/** The page a request asks for: its size, where it resumes, and the scope that binds its cursors. */
export interface PageRequest {
  limit: number;
  after: SortKey | undefined;
  scope: CursorScope;
}

/**
 * Reads `limit` and `cursor` from a validated query. The cursor is bound to the tenant, the listing
 * and every other parameter as sent, so it only resumes the very listing it came from.
 */
export function pageRequest(key: Buffer, tenant: string, listing: string, query: Record<string, unknown>): PageRequest {
  const { limit, cursor, ...filters } = query;
  const parameters = Object.entries(filters).flatMap(([name, value]): [string, string][] => (value === undefined ? [] : [[name, typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean)]])).sort();
  const scope: CursorScope = { key, tenant, query: `${listing}?${new URLSearchParams(parameters).toString()}` };
  return { limit: typeof limit === 'number' ? limit : 500, after: typeof cursor === 'string' ? decodeCursor(scope, cursor) : undefined, scope };
}

/** Keyset condition "strictly after this position" on the sort columns, as one row-value comparison. */
export function afterPosition(columns: string[], position: SortKey): RawBuilder<boolean> {
  return sql<boolean>`(${sql.join(columns.map((column) => sql.ref(column)))}) > (${sql.join([...position])})`;
}
