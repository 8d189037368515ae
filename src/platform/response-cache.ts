// Serialised responses of data that changes only through imports (configuration, employees,
// contracts, timetable, the feed), keyed by the company's data version. A hit skips the queries and
// the serialisation, and answers If-None-Match from the stored ETag. Bounded by bytes; the least
// recently used entries leave first. Correct across instances: the version lives in the database.
//
// Each entry also keeps its compressed representations (brotli, gzip), made on the first request
// that accepts one, off the event loop: a day's feed of 2,000 shifts is 1.4 MB of JSON and about
// 60 kB in brotli, so a client that sends Accept-Encoding (every browser, curl --compressed,
// fetch) downloads a twentieth, and the server compresses it once per data version, not per request.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagMatches, etagOf, serialised } from './collection.ts';

export type ContentCoding = 'br' | 'gzip';

/** On equal preference, brotli first: smaller for JSON. */
const CODINGS: ContentCoding[] = ['br', 'gzip'];
/** Below this, compressing saves less than it costs. */
const MIN_COMPRESSED_BYTES = 1024;

const compressors: Record<ContentCoding, (body: Buffer) => Promise<Buffer>> = {
  // Quality 5 of 11: most of the gain at a small part of the cost (71 ms for a 1.4 MB feed at 6).
  br: (body) => promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body) => promisify(gzip)(body),
};

export interface CachedResponse {
  body: Buffer;
  etag: string;
  /** The ETag of each compressed representation: the body's, marked with the coding. */
  etags: Record<ContentCoding, string>;
  /** Compressed representations, started on first demand. */
  encoded: Partial<Record<ContentCoding, Promise<Buffer>>>;
  /** The compressed representations made so far: sent without waiting on a promise. */
  made: Partial<Record<ContentCoding, Buffer>>;
  /** Bytes held: the body and the compressed representations made so far. */
  bytes: number;
}

export function cachedResponse(text: string): CachedResponse {
  const body = Buffer.from(text);
  const etag = etagOf(text);
  const marked = (coding: ContentCoding) => `${etag.slice(0, -1)}-${coding}"`;
  return { body, etag, etags: { br: marked('br'), gzip: marked('gzip') }, encoded: {}, made: {}, bytes: body.length };
}

export class ResponseCache {
  readonly #entries = new Map<string, CachedResponse>();
  /** The entries in #entries, so a compression finishing after an eviction is not charged. */
  readonly #held = new WeakSet<CachedResponse>();
  readonly #maxBytes: number;
  #bytes = 0;
  /** The entry last in #entries' order (or one already evicted): a hit on it needs no re-insert. */
  #newest: CachedResponse | undefined;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    // Re-insert so the Map's order is least recently used first; under load the same entry is asked
    // for again and again, and it is already last.
    if (entry && entry !== this.#newest) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      this.#newest = entry;
    }
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    if (entry.bytes > this.#maxBytes / 4) return;
    // Concurrent misses build the same key twice: the replaced entry's bytes leave with it.
    const replaced = this.#entries.get(key);
    if (replaced) {
      this.#bytes -= replaced.bytes;
      // Map.set keeps a key's place: deleted first, the entry goes last, where #newest says it is.
      this.#entries.delete(key);
    }
    this.#entries.set(key, entry);
    this.#newest = entry;
    this.#held.add(entry);
    if (replaced) this.#held.delete(replaced);
    this.#charge(entry.bytes);
  }

  /** The entry's body in `coding`, compressed once and kept with the entry. */
  encoded(entry: CachedResponse, coding: ContentCoding): Promise<Buffer> {
    let encoded = entry.encoded[coding];
    if (!encoded) {
      encoded = compressors[coding](entry.body);
      entry.encoded[coding] = encoded;
      void encoded.then((body) => {
        entry.made[coding] = body;
        entry.bytes += body.length;
        if (this.#held.has(entry)) this.#charge(body.length);
      }, () => delete entry.encoded[coding]);
    }
    return encoded;
  }

  #charge(bytes: number): void {
    this.#bytes += bytes;
    for (const [oldest, value] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#held.delete(value);
      this.#bytes -= value.bytes;
    }
  }
}

/** Negotiated codings by Accept-Encoding value: clients send a handful of distinct values. */
const negotiated = new Map<string, ContentCoding | undefined>();
const NEGOTIATED_LIMIT = 1000;

/** The coding to answer with for this Accept-Encoding, or undefined for the identity. */
export function contentCoding(acceptEncoding: string | undefined, bytes: number): ContentCoding | undefined {
  if (!acceptEncoding || bytes < MIN_COMPRESSED_BYTES) return undefined;
  if (negotiated.has(acceptEncoding)) return negotiated.get(acceptEncoding);
  const coding = negotiate<ContentCoding>(acceptEncoding, CODINGS) ?? undefined;
  if (negotiated.size >= NEGOTIATED_LIMIT) negotiated.clear();
  negotiated.set(acceptEncoding, coding);
  return coding;
}

/**
 * Answers with the cached body for `key`, building, serialising (with the route's response schema)
 * and caching it on a miss. `key` must name everything the body depends on, the data version first.
 * Each representation has its own strong ETag (the body's, with `-br`/`-gzip` for a compressed
 * one); If-None-Match matches any representation of the same body.
 *
 * A hit whose representation is made answers synchronously and returns undefined (the route's handler
 * returns that to Fastify: the answer is sent, no promise involved); otherwise a promise settled once
 * the answer is sent.
 */
export function replyCached(request: FastifyRequest, reply: FastifyReply, cache: ResponseCache, key: string, build: () => Promise<unknown>): Promise<void> | undefined {
  const entry = cache.get(key);
  return entry ? replyWith(request, reply, cache, entry) : replyBuilt(request, reply, cache, key, build);
}

async function replyBuilt(request: FastifyRequest, reply: FastifyReply, cache: ResponseCache, key: string, build: () => Promise<unknown>): Promise<void> {
  const entry = cachedResponse(serialised(reply, await build()));
  cache.set(key, entry);
  await replyWith(request, reply, cache, entry);
}

/** What a request gets of a cached entry: the coding negotiated, its ETag, and whether If-None-Match revalidates it. */
export interface Representation {
  coding: ContentCoding | undefined;
  etag: string;
  notModified: boolean;
}

export function representation(entry: CachedResponse, acceptEncoding: string | undefined, ifNoneMatch: string | undefined): Representation {
  const coding = contentCoding(acceptEncoding, entry.body.length);
  return { coding, etag: coding ? entry.etags[coding] : entry.etag, notModified: etagMatches(ifNoneMatch, entry.etag) };
}

/** The headers every answer from an entry carries, in the order they are sent (the cached-answer lane sends the same). */
export const CACHED_HEADERS = { cacheControl: 'private, no-cache', vary: 'accept-encoding', contentType: 'application/json; charset=utf-8' } as const;

function replyWith(request: FastifyRequest, reply: FastifyReply, cache: ResponseCache, entry: CachedResponse): Promise<void> | undefined {
  const { coding, etag, notModified } = representation(entry, request.headers['accept-encoding'], request.headers['if-none-match']);
  reply.header('etag', etag).header('cache-control', CACHED_HEADERS.cacheControl).header('vary', CACHED_HEADERS.vary);
  if (notModified) {
    reply.code(304).send();
    return undefined;
  }
  reply.type(CACHED_HEADERS.contentType);
  if (!coding) {
    reply.send(entry.body);
    return undefined;
  }
  reply.header('content-encoding', coding);
  const made = entry.made[coding];
  if (made) {
    reply.send(made);
    return undefined;
  }
  return cache.encoded(entry, coding).then((body) => {
    reply.send(body);
  });
}
