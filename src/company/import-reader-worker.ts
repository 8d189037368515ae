// The worker thread behind readImportBody (import-reader.ts): turns an import body of up to 64 MiB into
// the document's entries, off the event loop. It checks the bytes (UTF-8, depth, unstorable text)
// as every JSON body is checked, parses, reads every entry against its schema, then hands the
// entries back in small messages, one each time the main thread asks, so that no message costs the
// main thread more than a few milliseconds to receive.
import { isUtf8 } from 'node:buffer';
import { parentPort } from 'node:worker_threads';
import { ProblemError, type FieldError } from '../platform/errors.ts';
import { measureJson } from '../platform/json-body.ts';
import { findUnstorableText, invalidCharacter, mayHoldUnstorableText } from '../platform/unstorable-text.ts';
import { MAX_PROBLEMS, boundProblems, readDocument, type ReadDocument } from './import-document.ts';
import { SECTIONS } from './import-schema.ts';
import type { ReaderMessage } from './import-reader.ts';

/** About this much JSON per message: its structured clone is read on the main thread in a few ms. */
const CHUNK_CHARS = 256 * 1024;

function parse(bytes: Uint8Array): unknown {
  if (!isUtf8(bytes)) throw new ProblemError({ code: 'malformed_body', detail: 'The request body is not valid UTF-8.' });
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  measureJson(text);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ProblemError({ code: 'malformed_body', detail: 'The request body is not valid JSON.' });
  }
  const unstorable = mayHoldUnstorableText(text) ? findUnstorableText(document, '') : undefined;
  if (unstorable) throw invalidCharacter('body', unstorable);
  return document;
}

/** The entries of `read`, section by section, in messages of about CHUNK_CHARS. */
function* chunks(read: ReadDocument): Generator<ReaderMessage> {
  for (const section of SECTIONS) {
    for (const kind of ['upserts', 'deletions'] as const) {
      let items: unknown[] = [];
      let chars = 0;
      for (const item of read[section][kind]) {
        items.push(item);
        chars += JSON.stringify(item).length;
        if (chars < CHUNK_CHARS) continue;
        yield { type: 'entries', section, kind, items };
        [items, chars] = [[], 0];
      }
      if (items.length > 0) yield { type: 'entries', section, kind, items };
    }
  }
}

function* messages(bytes: Uint8Array): Generator<ReaderMessage> {
  let read: ReadDocument;
  const errors: FieldError[] = [];
  try {
    read = readDocument(parse(bytes), errors);
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    yield { type: 'refused', code: error.code, detail: error.message, errors: error.errors };
    return;
  }
  // A document already rejected by its shape alone (not an object, or too many problems) is not sent.
  const planned = errors.length < MAX_PROBLEMS && errors[0]?.path !== '';
  if (planned) yield* chunks(read);
  const malformed = Object.fromEntries(SECTIONS.map((section) => [section, [...read[section].malformed]]));
  yield { type: 'end', errors: boundProblems(errors), malformed };
}

const port = parentPort;
// The first message is the body; every later one asks for the next message.
port?.once('message', (bytes: Uint8Array) => {
  const pending = messages(bytes);
  const send = () => {
    const next = pending.next();
    if (!next.done) port.postMessage(next.value);
  };
  port.on('message', send);
  send();
});
