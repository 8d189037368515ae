// The worker thread behind importInWorker (import-job.ts): a whole import off the event loop. It
// checks the body's bytes (UTF-8, depth, unstorable text) as every JSON body is checked, parses it,
// reads every entry against its schema, then — when the main thread says the database is free —
// plans and writes it in one transaction on a connection of its own (import.ts: planAndWrite).
// The document, the stored rows, the plan and the change log all live on this thread's heap, so
// the main thread's garbage collector never meets them. A rejected document's problems are listed
// on demand, about CHUNK_BYTES of JSON text per message: read once to count them, then read again
// as the answer is sent, so millions of them are never held at once.
import { isUtf8 } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import { createDatabase, sqliteHandleOf } from '../platform/db/database.ts';
import { ProblemError, type FieldError } from '../platform/errors.ts';
import { measureJson } from '../platform/json-body.ts';
import { findUnstorableText, invalidCharacter, mayHoldUnstorableText } from '../platform/unstorable-text.ts';
import { breaksFrame, emptyDocument, inDocumentOrder, readDocument } from './import-document.ts';
import { planAndWrite } from './import.ts';
import type { JobMessage, JobSettings } from './import-job.ts';

/** JSON text of problems per message: written to a socket in a few milliseconds. */
const CHUNK_BYTES = 1024 * 1024;

function parse(bytes: Uint8Array, source: string): unknown {
  if (!isUtf8(bytes)) throw new ProblemError({ code: 'malformed_body', detail: `${source} is not valid UTF-8.` });
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  measureJson(text);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ProblemError({ code: 'malformed_body', detail: `${source} is not valid JSON.` });
  }
  const unstorable = mayHoldUnstorableText(text) ? findUnstorableText(document, '') : undefined;
  if (unstorable) throw invalidCharacter('body', unstorable);
  return document;
}

// Not Buffer.from: a small Buffer is a slice of a shared pool, which must not be transferred.
const utf8 = new TextEncoder();

/**
 * `problems` as the JSON text between the brackets of their array: `{path, message}` objects,
 * comma-separated, about CHUNK_BYTES at a time (one huge problem makes one chunk of its own).
 */
function* chunked(problems: Iterable<FieldError>): Generator<Uint8Array> {
  let parts: string[] = [];
  let length = 0;
  let separator = '';
  const chunk = () => {
    const text = separator + parts.join(',');
    [parts, length, separator] = [[], 0, ','];
    return utf8.encode(text);
  };
  for (const { path, message } of problems) {
    const text = JSON.stringify({ path, message });
    parts.push(text);
    length += text.length;
    if (length >= CHUNK_BYTES) yield chunk();
  }
  if (parts.length > 0) yield chunk();
}

const port = parentPort;
const settings = workerData as JobSettings;
const nextMessage = () => new Promise<unknown>((resolve) => port?.once('message', resolve));
const send = (message: JobMessage, transfer?: ArrayBuffer[]) => port?.postMessage(message, transfer);

/** Plans and writes on a connection of its own, once the main thread has made way for it. */
async function write(doc: ReturnType<typeof emptyDocument>, flawed: boolean) {
  send({ type: 'ready' });
  await nextMessage();
  const db = createDatabase(settings.databaseUrl, { poolSize: 1, statementTimeoutMs: settings.statementTimeoutMs });
  try {
    const outcome = await planAndWrite(db, settings.companyId, doc, flawed, settings.now);
    // Durable before it is reported (the server's own connection syncs its log the same way: durability.ts).
    await sqliteHandleOf(db)?.syncWriteAheadLog();
    return outcome;
  } finally {
    await db.destroy();
  }
}

async function run(bytes: Uint8Array): Promise<void> {
  const document = parse(bytes, settings.source);
  const doc = emptyDocument();
  let count = 0;
  let framed = true;
  for (const problem of readDocument(document, doc)) {
    count += 1;
    framed &&= !breaksFrame(problem);
  }
  let later: FieldError[] = [];
  if (framed) {
    const outcome = await write(doc, count > 0);
    if ('counts' in outcome) return send({ type: 'done', counts: outcome.counts });
    later = outcome.problems;
  }
  send({ type: 'rejected', count: count + later.length });
  // The shape problems again, in the same order, from a fresh reading, with planning's merged in by entry.
  const listed = chunked(inDocumentOrder(readDocument(document, emptyDocument()), later));
  for (;;) {
    await nextMessage();
    const next = listed.next();
    if (next.done) return send({ type: 'listed' });
    send({ type: 'problems', chunk: next.value }, [next.value.buffer as ArrayBuffer]);
  }
}

// The first message is the body; the later ones say "go on".
port?.once('message', (bytes: Uint8Array) => {
  run(bytes).catch((error: unknown) => {
    if (error instanceof ProblemError) return send({ type: 'refused', code: error.code, detail: error.message, errors: error.errors });
    const { message, code } = error as Error & { code?: string };
    send({ type: 'failed', message, code });
  });
});
