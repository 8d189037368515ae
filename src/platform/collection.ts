// The parts of a collection (contract: secured company API): keyset positions, signed cursors and ETags;
// paged-collection.ts puts them together. A cursor is HMAC-signed with a key shared through the
// database, and bound to the company and the query it came from, so a changed or transplanted cursor
// is a 400, never another tenant's page.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql, type RawBuilder } from 'kysely';
import { badRequest, queryParameter } from './errors.ts';

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

/** Keyset condition "strictly after this position" on the sort columns, as one row-value comparison. */
export function afterPosition(columns: string[], position: SortKey): RawBuilder<boolean> {
  return sql<boolean>`(${sql.join(columns.map((column) => sql.ref(column)))}) > (${sql.join([...position])})`;
}
