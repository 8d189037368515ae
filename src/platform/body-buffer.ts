// A large request body read into one buffer as it arrives. Fastify's `parseAs: 'buffer'` keeps the
// chunks and joins them at the end: for the 64 MiB import that one Buffer.concat (a fresh 64 MiB
// copy, and the collection V8 starts for that much new external memory) held the event loop for
// about 50 ms on the 2-core machine (CONTRACT §4 allows 50 ms). Here each chunk is copied into one
// resizable ArrayBuffer as it comes (the Content-Length, when sent, is its size from the start), so
// the work is spread over the turns that receive the chunks, and the finished body owns its memory
// whole: it can be handed to a worker thread without a copy.
import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyRequest } from 'fastify';

/** The first size of a body sent without a Content-Length; it doubles as needed, up to the limit. */
const UNDECLARED_START = 1024 * 1024;

type Done = (error: Error | null, body?: Buffer) => void;

function declaredLength(request: FastifyRequest): number | undefined {
  const declared = Number(request.headers['content-length']);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

/** A Fastify content-type parser (the stream form) that reads at most `limit` bytes into one buffer. */
export function bodyIntoOneBuffer(limit: number) {
  return (request: FastifyRequest, payload: IncomingMessage, done: Done): void => {
    const declared = declaredLength(request);
    if (declared !== undefined && declared > limit) {
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    const memory = new ArrayBuffer(declared ?? Math.min(UNDECLARED_START, limit), { maxByteLength: limit });
    const bytes = new Uint8Array(memory);
    let received = 0;
    const finish = (error: Error | null, body?: Buffer) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      done(error, body);
    };
    function onData(chunk: Buffer): void {
      if (received + chunk.length > limit) return finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      if (received + chunk.length > memory.byteLength) memory.resize(Math.min(limit, Math.max(memory.byteLength * 2, received + chunk.length)));
      bytes.set(chunk, received);
      received += chunk.length;
    }
    function onEnd(): void {
      memory.resize(received);
      finish(null, Buffer.from(memory));
    }
    function onError(error: Error & { statusCode?: number }): void {
      finish(Object.assign(error, { statusCode: typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 400 }));
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  };
}
