// How every JSON request body is read (contract: errors and limits): only UTF-8 (another charset is 415; bytes that
// are not UTF-8 are 400, not silently turned into U+FFFD), never deeper than MAX_JSON_DEPTH, and sized
// up by one cheap pass over the text before anything costly runs — JSON.parse with a reviver costs
// ~1 µs a value, so a 2 MiB body of a million zeros held the event loop for 1.5 s.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError, badRequest } from './errors.ts';
import { markCleanJson } from './unstorable-text.ts';

/** Deeper bodies are refused before parsing; no body of this service nests more than a handful of levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * Longer numbers are refused before parsing: no field of this service takes more than a few dozen
 * characters, and reading a 2 MiB number (its text kept, then converted) held the event loop ~40 ms.
 */
export const MAX_JSON_NUMBER_LENGTH = 256;

/** What one pass over a JSON text tells before it is parsed. */
export interface JsonShape {
  /** Commas outside strings: a lower bound on the number of values. */
  commas: number;
  /** Elements of the root object's `counted` array property, when the text has one. */
  countedLength: number | undefined;
  /**
   * Where the numbers are (start and end offsets, flattened) whose text a double may not keep: an
   * exponent, or more than 15 digits. Any other number's shortest double form (String(n)) has the
   * same decimal value as its text, so only these need their text kept.
   */
  inexactNumbers: number[];
}

function malformed(detail: string): ProblemError {
  return new ProblemError({ code: 'malformed_body', detail });
}

/** A body's bytes as text: 400 malformed_body when they are not UTF-8, rather than U+FFFD in their place (forms too: form-body.ts). */
export function utf8Text(raw: string | Buffer): string {
  const buffer = typeof raw === 'string' ? Buffer.from(raw) : raw;
  if (!isUtf8(buffer)) throw malformed('The request body is not valid UTF-8.');
  return buffer.toString('utf8');
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const COLON = 58;
const MINUS = 45;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const LOWER_E = 101;
const UPPER_E = 69;
/** Any decimal of at most this many significant digits survives a round trip through a double. */
const EXACT_DIGITS = 15;

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

/** The end of the number token at `start`, and whether a double keeps its decimal value. */
function numberToken(text: string, start: number): { end: number; exact: boolean } {
  let digits = 0;
  let exponent = false;
  let end = start;
  for (; end < text.length; end += 1) {
    const code = text.charCodeAt(end);
    if (isDigit(code)) digits += 1;
    else if (code === LOWER_E || code === UPPER_E) exponent = true;
    else if (code !== MINUS && code !== 46 && code !== 43) break;
  }
  return { end, exact: !exponent && digits <= EXACT_DIGITS };
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** Where a measuring pass stands: it can stop at any character and go on later (measureJsonInSlices). */
interface Measuring {
  next: number;
  depth: number;
  commas: number;
  inString: boolean;
  stringStart: number;
  // Property names of the root object are told apart from values by what precedes them.
  rootKeyExpected: boolean;
  lastRootKey: string;
  countingDepth: number;
  elements: number;
  sawElement: boolean;
  countedLength: number | undefined;
  inexactNumbers: number[];
}

function startMeasuring(): Measuring {
  return { next: 0, depth: 0, commas: 0, inString: false, stringStart: 0, rootKeyExpected: false, lastRootKey: '', countingDepth: -1, elements: 0, sawElement: false, countedLength: undefined, inexactNumbers: [] };
}

/**
 * Measures `text` from `m.next` to `until` (no allocation per value): throws malformed_body past
 * MAX_JSON_DEPTH, and counts commas and the length of the root object's `counted` array. Only
 * structure outside strings counts; a text that is not JSON is left for the parser to refuse. The
 * state lives in locals during the loop (it is the hot part) and goes back into `m` at the end.
 */
function measureUntil(text: string, counted: string | undefined, m: Measuring, until: number): void {
  let { depth, commas, inString, stringStart, rootKeyExpected, lastRootKey, countingDepth, elements, sawElement, countedLength } = m;
  const inexactNumbers = m.inexactNumbers;
  let i = m.next;
  for (; i < until; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) {
        inString = false;
        if (rootKeyExpected && depth === 1) lastRootKey = text.slice(stringStart, i);
      }
      continue;
    }
    if (isSpace(code)) continue;
    if (countingDepth === depth && code !== CLOSE_ARRAY && code !== COMMA) sawElement = true;
    if (code === QUOTE) {
      inString = true;
      stringStart = i + 1;
    } else if (code === MINUS || isDigit(code)) {
      const token = numberToken(text, i);
      if (token.end - i > MAX_JSON_NUMBER_LENGTH) throw malformed(`A number in the request body is longer than ${MAX_JSON_NUMBER_LENGTH} characters.`);
      if (!token.exact) inexactNumbers.push(i, token.end);
      i = token.end - 1;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) throw malformed(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
      if (code === OPEN_ARRAY && depth === 2 && counted !== undefined && lastRootKey === counted && countedLength === undefined) {
        countingDepth = 2;
        elements = 0;
        sawElement = false;
      }
      rootKeyExpected = code === OPEN_OBJECT && depth === 1;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      if (countingDepth === depth) {
        countedLength = elements + (sawElement ? 1 : 0);
        countingDepth = -1;
      }
      depth -= 1;
    } else if (code === COMMA) {
      commas += 1;
      if (countingDepth === depth) elements += 1;
      if (depth === 1) rootKeyExpected = true;
    } else if (code === COLON && depth === 1) {
      rootKeyExpected = false;
    }
  }
  Object.assign(m, { next: i, depth, commas, inString, stringStart, rootKeyExpected, lastRootKey, countingDepth, elements, sawElement, countedLength });
}

const shapeOf = (m: Measuring): JsonShape => ({ commas: m.commas, countedLength: m.countedLength, inexactNumbers: m.inexactNumbers });

/** Measures the whole `text` in one go (see measureUntil). */
export function measureJson(text: string, counted?: string): JsonShape {
  const m = startMeasuring();
  measureUntil(text, counted, m, text.length);
  return shapeOf(m);
}

/**
 * Characters measured per turn of the event loop: a 2 MiB body took 30–55 ms in one pass on the
 * 2-core machine, close to the 50 ms any request may hold the loop (CONTRACT §4); a slice takes a few.
 */
const MEASURE_SLICE = 256 * 1024;

/** measureJson, a slice per turn of the event loop, so a 2 MiB body never holds the loop for its whole pass. */
export function measureJsonInSlices(text: string, counted: string | undefined, done: (error: unknown, shape?: JsonShape) => void): void {
  const m = startMeasuring();
  const step = (): void => {
    try {
      measureUntil(text, counted, m, Math.min(text.length, m.next + MEASURE_SLICE));
    } catch (error) {
      done(error);
      return;
    }
    if (m.next < text.length) setImmediate(step);
    else done(null, shapeOf(m));
  };
  step();
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** 415 for a body declared in another charset than UTF-8 (`application/json; charset=utf-16`). */
export function refuseOtherCharsets(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new ProblemError({ code: 'unsupported_media_type', detail: `The body is declared as charset ${charset}; send it as UTF-8.` }), payload);
      return;
    }
    done(null, payload);
  });
}

/** Parses a measured JSON text; a route that reads amounts exactly brings its own. */
export type JsonBodyParser = (text: string, shape: JsonShape, request: FastifyRequest) => unknown;

export interface JsonBodyOptions {
  /** The root array property whose length the parser is told before parsing (a batch's `items`). */
  counted?: string;
  /** More values than this (counted by their commas) are refused before parsing: 400 validation_failed. */
  maxValues?: number;
}

/**
 * Values a company API body other than a batch may hold (a punch, a webhook endpoint: a few dozen):
 * a 2 MiB body of a million keys held the event loop ~200 ms in JSON.parse and the schema's check.
 */
export const MAX_JSON_VALUES = 1000;

function refuseManyValues(shape: JsonShape, maxValues: number | undefined): void {
  if (maxValues === undefined || shape.commas < maxValues) return;
  throw badRequest('validation_failed', `The body holds more values than this endpoint takes (at most ${maxValues}).`, [{ path: '/', message: `must hold at most ${maxValues} values` }]);
}

/**
 * A Fastify content-type parser for application/json: UTF-8 checked, measured (depth refused, sizes
 * told to `parse`), then parsed by `parse`, and marked clean of unstorable text when its escapes
 * allow (unstorable-text.ts). Any failure is a 400 (malformed_body unless the parser says otherwise).
 */
export function jsonBodyParser(parse: JsonBodyParser, options: JsonBodyOptions = {}) {
  return (request: FastifyRequest, raw: string | Buffer, done: (error: Error | null, body?: unknown) => void): void => {
    let text: string;
    try {
      text = utf8Text(raw);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    measureJsonInSlices(text, options.counted, (measureError, shape) => {
      try {
        if (measureError || !shape) throw measureError;
        refuseManyValues(shape, options.maxValues);
        const body = parse(text, shape, request);
        markCleanJson(text, body);
        done(null, body);
      } catch (error) {
        done(asBodyError(error), undefined);
      }
    });
  };
}

function asBodyError(error: unknown): Error {
  // A RangeError (stack exhausted) is not reached past the depth check, but would still be the body's fault.
  if (error instanceof SyntaxError || error instanceof RangeError) return malformed('The request body is not valid JSON.');
  // Problems of our own, and Fastify's (an empty body: 400 bad_request), keep their status.
  return error as Error;
}

/** JSON.parse as Fastify's own parser does it: "__proto__" and "constructor.prototype" keys are refused. */
export function plainJson(app: FastifyInstance): JsonBodyParser {
  const fastifyParse = app.getDefaultJsonParser('error', 'error');
  return (text, _shape, request) => {
    let result: unknown;
    void fastifyParse(request, text, (error, body) => {
      if (error) throw error;
      result = body;
    });
    return result;
  };
}

/** Every JSON body of `app` (and of scopes that keep its parsers) read by jsonBodyParser; other charsets refused. */
export function readJsonBodies(app: FastifyInstance): void {
  const parse = plainJson(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonBodyParser(parse));
  refuseOtherCharsets(app);
}
