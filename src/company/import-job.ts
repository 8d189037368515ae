// An import body from outside (the operator API's, up to 64 MiB, and `wfs import`'s file) imported
// without holding the event loop (CONTRACT §4): a worker thread (import-job-worker.ts) parses,
// checks, plans and writes it on a database connection of its own, so neither the work nor the
// document's hundreds of megabytes of entries, rows and change-log entries touch this thread. Here
// only messages arrive: "ready to write", the counts, or a rejection whose problems (CONTRACT §5:
// every one) are then asked for a chunk of JSON text at a time, as fast as the reader takes them.
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { ProblemError, type FieldError } from '../platform/errors.ts';
import type { ErrorCode } from '../platform/error-codes.ts';
import { whileMainConnectionWaits, type Db } from '../platform/db/database.ts';
import { announceImport, rejectionDetail, type ImportCounts } from './import.ts';

/** What the worker needs besides the body: where to write, and what. */
export interface JobSettings {
  databaseUrl: string;
  statementTimeoutMs: number;
  companyId: string;
  now: number;
  /** What the bytes are, for the messages of a body that is not JSON: "The request body", or a file's name. */
  source: string;
}

/** What the worker sends, one message for each the main thread posts. */
export type JobMessage =
  | { type: 'ready' }
  | { type: 'done'; counts: ImportCounts }
  | { type: 'rejected'; count: number }
  | { type: 'problems'; chunk: Uint8Array }
  | { type: 'listed' }
  | { type: 'refused'; code: ErrorCode; detail: string; errors: FieldError[] | undefined }
  | { type: 'failed'; message: string; code: string | undefined };

/** A rejected document: how many problems it has, and all of them, as they are read. */
export interface Rejection {
  count: number;
  detail: string;
  /**
   * Every problem, as the JSON text between the brackets of their array (`{path, message}` objects,
   * comma-separated). Read it to the end or destroy it: either ends the worker.
   */
  problems: Readable;
}

/**
 * The worker's heap: a 64 MiB document of valid entries needs about 1.2 GB with its plan and change
 * log; one of tens of millions of empty objects needs more, and is refused (413) instead of taking
 * the process down.
 */
const WORKER_HEAP_MB = 3072;

function tooLarge(): ProblemError {
  return new ProblemError({ code: 'payload_too_large', detail: 'The import document takes more memory to read than an import may use; split it into several imports.' });
}

/** A function that posts `message` to `worker` and resolves with its answer. */
function conversation(worker: Worker): (message: unknown, transfer?: ArrayBuffer[]) => Promise<JobMessage> {
  let waiting: { resolve: (message: JobMessage) => void; reject: (error: Error) => void } | undefined;
  worker.on('message', (message: JobMessage) => waiting?.resolve(message));
  worker.on('error', (error: Error & { code?: string }) => waiting?.reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooLarge() : error));
  worker.on('exit', () => waiting?.reject(new Error('The import worker stopped before it answered.')));
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

/** The rejection's problems, asked for a chunk at a time as the reader takes them. */
function problemStream(ask: (message: unknown) => Promise<JobMessage>, worker: Worker): Readable {
  return new Readable({
    read() {
      ask('next').then(
        (message) => this.push(message.type === 'problems' ? Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength) : null),
        (error: Error) => this.destroy(error),
      );
    },
    destroy(error, callback) {
      void worker.terminate();
      callback(error);
    },
  });
}

/**
 * Imports `body` into the company: its counts, or the Rejection of a document with problems (nothing
 * written). A body that is not JSON, or holds unstorable text, is refused as any JSON body is (400).
 */
export async function importInWorker(db: Db, settings: JobSettings, body: Buffer): Promise<ImportCounts | Rejection> {
  const worker = new Worker(new URL('./import-job-worker.ts', import.meta.url), { workerData: settings, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  const ask = conversation(worker);
  let listing = false;
  try {
    let message = await ask(body, transferable(body));
    if (message.type === 'ready') message = await whileMainConnectionWaits(db, () => ask('write'));
    switch (message.type) {
      case 'done':
        await announceImport(db, settings.companyId, message.counts);
        return message.counts;
      case 'rejected':
        listing = true;
        return { count: message.count, detail: rejectionDetail(message.count), problems: problemStream(ask, worker) };
      case 'refused':
        throw new ProblemError({ code: message.code, detail: message.detail, ...(message.errors ? { errors: message.errors } : {}) });
      case 'failed':
        throw Object.assign(new Error(message.message), { code: message.code });
      default:
        throw new Error(`The import worker answered ${message.type} out of turn.`);
    }
  } finally {
    if (!listing) void worker.terminate();
  }
}
