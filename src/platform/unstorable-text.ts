// Text that no database stores faithfully (contract: errors and limits): U+0000, which PostgreSQL refuses outright
// (a 500) while SQLite keeps it, and an unpaired UTF-16 surrogate, which both turn into U+FFFD — so
// two different keys became one row. Such a string is refused once, at the edge, wherever it comes
// in (body, form, query, path), before any feature sees it; so is a percent-escape in a URL or form
// that decodes to no text (an encoded surrogate, an overlong or truncated sequence, `%ZZ`), which the
// parsers would keep as literal characters (percent-decoding.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError, type FieldError } from './errors.ts';
import { undecodableIn, undecodablePath } from './percent-decoding.ts';

/** What is wrong with `text` in words, or undefined when it can be stored as sent. */
export function unstorableReason(text: string): string | undefined {
  if (text.includes('\u0000')) return 'holds U+0000 (NUL), which cannot be stored';
  if (!text.isWellFormed()) return 'holds an unpaired UTF-16 surrogate (a broken character), which cannot be stored';
  return undefined;
}

function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The first string in `value` (a property name or a string value, at any depth) that cannot be
 * stored, as a field error at its JSON pointer under `base`. Walks without recursion: the body's depth
 * is bounded by the JSON parser, a query's or form's by the URL syntax, but a walk need not rely on it.
 */
export function findUnstorableText(value: unknown, base: string): FieldError | undefined {
  const pending: Array<[unknown, string]> = [[value, base]];
  while (pending.length > 0) {
    const [current, path] = pending.pop() as [unknown, string];
    if (typeof current === 'string') {
      const reason = unstorableReason(current);
      if (reason) return { path: path || '/', message: reason };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i -= 1) pending.push([current[i], `${path}/${i}`]);
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      for (const key of keys) {
        const reason = unstorableReason(key);
        if (reason) return { path: path || '/', message: `has a property name that ${reason}` };
      }
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] as string;
        pending.push([(current as Record<string, unknown>)[key], `${path}/${pointerToken(key)}`]);
      }
    }
  }
  return undefined;
}

type Part = 'params' | 'querystring' | 'body';

/** Each part of a request: the JSON pointer base of its fields, and how a problem names the part and a field of it. */
const PARTS: Record<Part, { base: string; whole: string; field: string }> = {
  params: { base: '/params', whole: 'The path', field: 'Path parameter' },
  querystring: { base: '/querystring', whole: 'The query', field: 'Query parameter' },
  body: { base: '', whole: 'The body', field: 'Body field' },
};

/** Bodies the JSON parser has already seen to hold no escape that could produce such a string. */
const cleanBodies = new WeakSet<object>();

/**
 * Marks a parsed JSON body as free of unstorable text. JSON text only gets U+0000 or a lone surrogate
 * through a `\u` escape (raw ones are not valid JSON, and the UTF-8 decoding of a body never yields
 * a lone surrogate), so a body whose text has no such escape need not be walked.
 */
export function markCleanJson(text: string, body: unknown): void {
  if (!mayHoldUnstorableText(text)) markChecked(body);
}

/** Whether the JSON `text` has an escape that could produce U+0000 or a lone surrogate. */
export function mayHoldUnstorableText(text: string): boolean {
  return /\\u(?:0000|[dD][89abcdefABCDEF])/.test(text);
}

/** Marks a body whose parser has already refused unstorable text (the import's, in its worker). */
export function markChecked(body: unknown): void {
  if (body !== null && typeof body === 'object') cleanBodies.add(body);
}

/**
 * An escape in the path, query or form that did not decode (percent-decoding.ts), as a field error:
 * at the path parameter that holds the U+FFFD the router was given in its place (the first such; the
 * path as a whole when none does or no route matched, as when the escape is in a fixed segment), at
 * the query or form field, or at the part itself when the escape is in a field's name.
 */
function undecodableFieldIn(request: FastifyRequest, part: Part, value: unknown): FieldError | undefined {
  const { base } = PARTS[part];
  if (part === 'params') {
    const reason = undecodablePath(request.raw);
    if (!reason) return undefined;
    const named = value !== null && typeof value === 'object' ? Object.entries(value as Record<string, string>) : [];
    const name = named.find(([, text]) => text.includes('\uFFFD'))?.[0];
    return name === undefined ? { path: base, message: `has a segment that ${reason}` } : { path: `${base}/${pointerToken(name)}`, message: reason };
  }
  const found = undecodableIn(value);
  if (!found) return undefined;
  if (found.field === undefined) return { path: base || '/', message: `has a field name that ${found.reason}` };
  return { path: `${base}/${pointerToken(found.field)}`, message: found.reason };
}

/**
 * Path parameters and the query are decoded from the URL. Without a %-escape in it their text is the
 * URL's own characters, printable ASCII (Node's HTTP parser answers 400 to a raw control byte or a
 * byte over 0x7F), so only a URL with a `%` needs the checks; most requests skip them.
 */
function unstorableIn(request: FastifyRequest): { part: Part; error: FieldError } | undefined {
  // Where no route matched, the path is the not-found route's wildcard: checked as the path as a whole.
  const params = request.is404 ? (request.params as Record<string, string | undefined>)['*'] : request.params;
  const parts: Array<[Part, unknown]> = request.url.includes('%') ? [['params', params], ['querystring', request.query]] : [];
  const body = request.body;
  if (body !== undefined && body !== null && !(typeof body === 'object' && cleanBodies.has(body))) parts.push(['body', body]);
  for (const [part, value] of parts) {
    const error = undecodableFieldIn(request, part, value) ?? findUnstorableText(value, PARTS[part].base);
    if (error) return { part, error };
  }
  return undefined;
}

/**
 * Refuses, on every route, a request whose path parameters, query or body hold unstorable text or an
 * undecodable escape: 400 `invalid_character` naming the field, rendered by the error handler in the
 * route's own shape (problem+json, OAuth `invalid_request`, or the HTML error page).
 */
export function refuseUnstorableText(app: FastifyInstance): void {
  // Callback style, like the other per-request hooks: no promise on the common, clean path.
  app.addHook('preValidation', (request, _reply, done) => {
    const found = unstorableIn(request);
    if (!found) {
      done();
      return;
    }
    done(invalidCharacter(found.part, found.error));
  });
}

/** 400 `invalid_character` for the unstorable string `error` found in `part` of a request. */
export function invalidCharacter(part: Part, error: FieldError): ProblemError {
  const { base, whole, field } = PARTS[part];
  const where = error.path === (base || '/') ? whole : `${field} ${part === 'body' ? error.path : error.path.slice(base.length + 1)}`;
  return new ProblemError({ code: 'invalid_character', detail: `${where} ${error.message}.`, errors: [error] });
}
