// A large body is read into one buffer as it arrives (src/platform/body-buffer.ts): the bytes intact
// whether or not a Content-Length was sent, the buffer owning its memory whole (so it can be handed
// to a worker without a copy), and a body over the limit refused with 413, before reading when the
// Content-Length says so.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { bodyIntoOneBuffer } from '../../src/platform/body-buffer.ts';

const LIMIT = 4 * 1024 * 1024;
const app = Fastify();
app.addContentTypeParser('application/octet-stream', bodyIntoOneBuffer(LIMIT));
app.post('/echo', { bodyLimit: LIMIT }, async (request) => {
  const body = request.body as Buffer;
  return { length: body.length, sha256: createHash('sha256').update(body).digest('hex'), ownsItsMemory: body.byteOffset === 0 && body.buffer.byteLength === body.length };
});
const base = await app.listen({ port: 0, host: '127.0.0.1' });
after(() => app.close());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The body sent in 64 KiB pieces without a Content-Length (chunked). */
function chunked(bytes: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, (offset += 65536)));
    },
  });
}

const post = (body: Buffer | ReadableStream<Uint8Array>) => fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body, duplex: 'half' });

test('a body with a Content-Length arrives intact, in a buffer that owns its memory', async () => {
  const bytes = randomBytes(3 * 1024 * 1024 + 17);
  assert.deepEqual(await (await post(bytes)).json(), { length: bytes.length, sha256: sha256(bytes), ownsItsMemory: true });
});

test('a chunked body (no Content-Length) grows the buffer as it arrives, and arrives intact', async () => {
  const bytes = randomBytes(3 * 1024 * 1024 + 5);
  assert.deepEqual(await (await post(chunked(bytes))).json(), { length: bytes.length, sha256: sha256(bytes), ownsItsMemory: true });
});

test('an empty body and a body of exactly the limit are read', async () => {
  for (const bytes of [Buffer.alloc(0), randomBytes(LIMIT)]) {
    assert.equal(((await (await post(bytes)).json()) as { length: number }).length, bytes.length);
  }
});

test('a body over the limit is 413, by its Content-Length and when sent chunked', async () => {
  assert.equal((await post(randomBytes(LIMIT + 1))).status, 413);
  assert.equal((await post(chunked(randomBytes(LIMIT + 1)))).status, 413);
});
