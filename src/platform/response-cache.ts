// Serialised responses of data that changes only through imports (configuration, employees,
// contracts, timetable, the feed), keyed by the company's data version. A hit skips the queries and
// the serialisation, and answers If-None-Match from the stored ETag. Bounded by bytes; the oldest
// entries leave first. Correct across instances: the version lives in the database.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, sendWithEtag, serialised } from './collection.ts';

interface CachedResponse {
  body: string;
  etag: string;
}

export class ResponseCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      // Re-insert so the Map's order is least recently used first.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    if (entry.body.length > this.#maxBytes / 4) return;
    this.#entries.set(key, entry);
    this.#bytes += entry.body.length;
    for (const [oldest, value] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= value.body.length;
    }
  }
}

/**
 * Answers with the cached body for `key`, building, serialising (with the route's response schema)
 * and caching it on a miss. `key` must name everything the body depends on, the data version first.
 */
export async function replyCached(request: FastifyRequest, reply: FastifyReply, cache: ResponseCache, key: string, build: () => Promise<unknown>): Promise<FastifyReply> {
  let entry = cache.get(key);
  if (!entry) {
    const body = serialised(reply, await build());
    entry = { body, etag: etagOf(body) };
    cache.set(key, entry);
  }
  return sendWithEtag(request, reply, entry.body, entry.etag);
}
