// An import body (up to 64 MiB, CONTRACT §5) read without holding the event loop (CONTRACT §4): a
// worker thread (import-reader-worker.ts) checks, parses and reads it against the entry schemas,
// then the entries come back in messages of about 256 KiB, one at a time, each asked for after the
// last was taken in, so the loop turns between them. JSON.parse of 64 MiB alone takes about a
// second; in the worker it holds nothing but the worker. A streaming parser on the main thread was
// the other way: it would parse ten times slower than JSON.parse and still validate here.
import { Worker } from 'node:worker_threads';
import { ProblemError, type FieldError } from '../platform/errors.ts';
import type { ErrorCode } from '../platform/error-codes.ts';
import { emptyDocument, type Located, type ReadImport } from './import-document.ts';
import type { Section } from './import-schema.ts';

/** What the worker sends, one message for each the main thread posts. */
export type ReaderMessage =
  | { type: 'entries'; section: Section; kind: 'upserts' | 'deletions'; items: unknown[] }
  | { type: 'refused'; code: ErrorCode; detail: string; errors: FieldError[] | undefined }
  | { type: 'end'; errors: FieldError[]; malformed: Record<string, string[]> };

/**
 * The worker's heap: a 64 MiB document of valid entries needs about 600 MB; one of tens of millions
 * of empty objects needs more, and is refused (413) instead of taking the process down.
 */
const READER_HEAP_MB = 1536;

function tooLarge(): ProblemError {
  return new ProblemError({ code: 'payload_too_large', detail: 'The import document takes more memory to read than an import may use; split it into several imports.' });
}

/** A function that posts `message` to `worker` and resolves with its answer. */
function conversation(worker: Worker): (message: unknown, transfer?: ArrayBuffer[]) => Promise<ReaderMessage> {
  let waiting: { resolve: (message: ReaderMessage) => void; reject: (error: Error) => void } | undefined;
  worker.on('message', (message: ReaderMessage) => waiting?.resolve(message));
  worker.on('error', (error: Error & { code?: string }) => waiting?.reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooLarge() : error));
  worker.on('exit', () => waiting?.reject(new Error('The import reader stopped before it answered.')));
  return (message, transfer) => new Promise((resolve, reject) => {
    waiting = { resolve, reject };
    worker.postMessage(message, transfer);
  });
}

/** `body`'s memory handed to the worker when the body owns all of it (a large body does); else a copy. */
function transferable(body: Buffer): ArrayBuffer[] {
  const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
  return whole ? [body.buffer] : [];
}

/**
 * Reads an import body: 400 `malformed_body` or `invalid_character` as any JSON body, else the
 * document's entries and its problems of shape.
 */
export async function readImportBody(body: Buffer): Promise<ReadImport> {
  const worker = new Worker(new URL('./import-reader-worker.ts', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: READER_HEAP_MB } });
  const ask = conversation(worker);
  const doc = emptyDocument();
  try {
    let message = await ask(body, transferable(body));
    while (message.type === 'entries') {
      (doc[message.section][message.kind] as Located<unknown>[]).push(...(message.items as Located<unknown>[]));
      message = await ask('next');
    }
    if (message.type === 'refused') throw new ProblemError({ code: message.code, detail: message.detail, ...(message.errors ? { errors: message.errors } : {}) });
    for (const [section, refs] of Object.entries(message.malformed)) doc[section as Section].malformed = new Set(refs);
    return { doc, errors: message.errors };
  } finally {
    void worker.terminate();
  }
}
