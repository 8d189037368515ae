// Percent-escapes that decode to no text. In a URL or a form a lone UTF-16 surrogate can only be written
// as its (invalid) UTF-8 bytes, percent-encoded (`%ED%A0%80`), and the parsers keep whatever escape
// they cannot decode as literal characters: fast-querystring (Fastify's query, and the form
// parser's, form-body.ts) keeps `%ED%A0%80`, `%C0%80`, `%F0` or `%ZZ` as written, and the router answers 400 before
// any route (so without the route's error shape or rate-limit count). Here such text is parsed as
// before and remembered, and the route's own hook refuses it (unstorable-text.ts), in the route's
// shape. Only text holding a `%` is looked at; everything else costs one `includes`.
import type { IncomingMessage } from 'node:http';
import { parse } from 'fast-querystring';

/** An escape that decodes to no text: the field it is in (undefined: in a name, or outside any field) and why. */
export interface UndecodableText {
  field: string | undefined;
  reason: string;
}

const NOT_UTF8 = 'holds percent-encoded bytes that are not UTF-8 text (an encoded surrogate, an overlong or a truncated sequence), which cannot be stored';
const NOT_AN_ESCAPE = 'holds a "%" that does not start a percent-encoded byte (two hex digits)';
const NOT_AN_ESCAPE_PATTERN = /%(?![0-9A-Fa-f]{2})/;

/** Why `text` (a part of a URL or form, `+` aside) does not percent-decode, or undefined when it does. */
function undecodable(text: string): string | undefined {
  if (!text.includes('%')) return undefined;
  try {
    decodeURIComponent(text);
    return undefined;
  } catch {
    return NOT_AN_ESCAPE_PATTERN.test(text) ? NOT_AN_ESCAPE : NOT_UTF8;
  }
}

/** The first name or value of form-encoded `text` (`a=1&b=2`) that does not percent-decode. */
function undecodableField(text: string): UndecodableText | undefined {
  for (const pair of text.split('&')) {
    const at = pair.indexOf('=');
    const name = at < 0 ? pair : pair.slice(0, at);
    const inName = undecodable(name);
    if (inName) return { field: undefined, reason: inName };
    const inValue = at < 0 ? undefined : undecodable(pair.slice(at + 1));
    if (inValue) return { field: decodeURIComponent(name.replaceAll('+', ' ')), reason: inValue };
  }
  return undefined;
}

/** Parsed queries and forms that held an undecodable escape, with the first one. */
const undecodableParsed = new WeakMap<object, UndecodableText>();

/**
 * The router's query parser and the form parser: fast-querystring's parse, as both had it (an empty
 * query an empty object), the result remembered when an escape in `text` does not decode.
 */
export function parseUrlEncoded(text: string): Record<string, unknown> {
  if (text.length === 0) return {};
  const parsed = parse(text);
  if (text.includes('%')) {
    const found = undecodableField(text);
    if (found) undecodableParsed.set(parsed, found);
  }
  return parsed;
}

/** The undecodable escape in a query or form parsed by parseUrlEncoded, if it held one. */
export function undecodableIn(parsed: unknown): UndecodableText | undefined {
  return parsed !== null && typeof parsed === 'object' ? undecodableParsed.get(parsed) : undefined;
}

/** Requests whose path held an undecodable escape, with why. */
const undecodablePaths = new WeakMap<IncomingMessage, string>();

const ESCAPES = /(?:%[0-9A-Fa-f]{2})+|%/g;
const REPLACEMENT = '%EF%BF%BD';

/**
 * Fastify's `rewriteUrl`: a path whose escapes do not decode is routed with U+FFFD in place of each
 * undecodable run (as a lenient decoder would read it) and remembered, so the route it reaches runs
 * its own hooks (authentication, the rate limit) and refuses it in its own shape. Without a `%` in the
 * path (nearly every request), the URL is returned as it came.
 */
export function routableUrl(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const percent = url.indexOf('%');
  if (percent < 0) return url;
  const query = url.search(/[?#]/);
  const end = query < 0 ? url.length : query;
  if (percent > end) return url;
  const path = url.slice(0, end);
  const reason = undecodable(path);
  if (!reason) return url;
  undecodablePaths.set(request, reason);
  return path.replace(ESCAPES, (run) => (undecodable(run) ? REPLACEMENT : run)) + url.slice(end);
}

/** Why the request's path did not decode (routableUrl read it so), or undefined when it did. */
export function undecodablePath(request: IncomingMessage): string | undefined {
  return undecodablePaths.get(request);
}
