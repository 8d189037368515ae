// Schemas shared by every feature: the problem-details body, the collection envelope, the empty 304
// and nullable fields.
import { Type, type Static, type TSchema } from 'typebox';
import { isTimeZoneName } from './local-time.ts';

/** The text formats fields are checked against, each with what it asks for in words. */
export const PATTERNS = {
  date: { pattern: '^\\d{4}-\\d{2}-\\d{2}$', message: 'must be a date as YYYY-MM-DD' },
  isoWeek: { pattern: '^\\d{4}-W\\d{2}$', message: 'must be an ISO week as YYYY-Www (for example 2026-W47)' },
  /** A business day this service stores figures for: nothing before 2000 or after 2099 is plausible. */
  boundedDate: { pattern: '^20\\d{2}-\\d{2}-\\d{2}$', message: 'must be a date as YYYY-MM-DD from 2000-01-01 to 2099-12-31' },
  boundedIsoWeek: { pattern: '^20\\d{2}-W\\d{2}$', message: 'must be an ISO week as YYYY-Www of the years 2000 to 2099 (for example 2026-W47)' },
  time: { pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', message: 'must be a time as HH:MM (00:00 to 23:59)' },
  currency: { pattern: '^[A-Z]{3}$', message: 'must be an ISO 4217 code such as EUR' },
  email: { pattern: '^[^@\\s]+@[^@\\s]+$', message: 'must be an email address' },
  /** An email address as a person types it: white space around it is ignored (it is stored trimmed, in lower case). */
  typedEmail: { pattern: '^\\s*[^@\\s]+@[^@\\s]+\\s*$', message: 'must be an email address' },
  /** A name or any other text that must say something: white space alone is no name. */
  nonBlank: { pattern: '\\S', message: 'is required' },
  locale: { pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$', message: 'must be a BCP 47 tag such as nl-NL' },
  /**
   * An email domain as a person types it: a host name in ASCII (punycode), any case, optionally after
   * an `@`, white space around it ignored (it is stored trimmed, in lower case, without the `@`).
   */
  typedEmailDomain: {
    pattern: '^\\s*@?(?=\\S{4,253}\\s*$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z][A-Za-z0-9-]{0,61}[A-Za-z0-9]\\s*$',
    message: 'must be an email domain such as example.com (IDNs in punycode)',
  },
} as const;

/** Formats of this service's own (beside JSON Schema's `date-time`, `uri` …), each with its check and its words. */
export const FORMATS: Record<string, { check: (value: string) => boolean; message: string }> = {
  'time-zone': { check: isTimeZoneName, message: 'must be an IANA time zone such as Europe/Amsterdam' },
};

/** The words for a failed `format` check of one of FORMATS. */
export function formatMessage(format: unknown): string | undefined {
  return FORMATS[String(format)]?.message;
}

/** An id this service issued (`cmp_…`, `cli_…`), as a path parameter or a body field names it. */
export const Id = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

/** An email address as a person types it (PATTERNS.typedEmail); keep it as `typedEmail.trim().toLowerCase()`. */
export const TypedEmail = (description: string) => Type.String({ maxLength: 254, pattern: PATTERNS.typedEmail.pattern, description: `${description}; stored trimmed and in lower case` });

const PATTERN_MESSAGES = new Map<unknown, string>(Object.values(PATTERNS).map(({ pattern, message }) => [pattern, message]));

/** The words for a failed `pattern` check, instead of the regular expression a validator would quote. */
export function patternMessage(pattern: unknown): string | undefined {
  return PATTERN_MESSAGES.get(pattern);
}

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable error code; see docs/errors.md.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer: into the body (`/items/3/amount`), or `/querystring/<name>` for a query parameter.' }),
          message: Type.String(),
        }),
      ),
    ),
    requestId: Type.String(),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (problem+json, code names the rule)',
  401: 'Missing, invalid, expired or revoked ID token',
  404: 'Not found within the token\'s reach',
  409: 'Conflict',
  410: 'Gone: the cursor is past retention (code cursor_expired); read the collections again',
  413: 'Body over 2 MiB',
  415: 'Body is not application/json',
  429: 'Rate limited; see Retry-After',
  503: 'Database unavailable; retry',
};

/** Response schemas for the given error statuses, each a problem+json body. */
export function problemResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, problemResponse(DESCRIPTIONS[s] ?? 'Error')]));
}

/** A problem+json response with a description of its own (an operation whose status means something else there). */
export function problemResponse(description: string): TSchema {
  return { ...Problem, description };
}

/**
 * A read's success that no cache may keep (`Cache-Control: no-store`, which its handler sends instead
 * of the company API's `private, no-cache`), declared so in the OpenAPI document with `why`.
 */
export function sentNotStored<T extends TSchema>(schema: T, why: string): T {
  return { ...schema, headers: { 'Cache-Control': { type: 'string', const: 'no-store', description: `\`no-store\`: ${why}` } } };
}

/** The query string of an operation that takes no parameter: an unknown one is `400`, as everywhere. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * The body of a write that takes no field: none at all, or `{}`; an unknown property is `400`, as on
 * every other write. Give the route `preValidation: absentBodyIsEmpty` too, so that no body passes.
 */
export const NoBody = Type.Object({}, { additionalProperties: false, description: 'No field: send no body, or `{}`.' });

export function Collection<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` to get the next page; null on the last page.' }),
  });
}

/**
 * `schema` with examples for the OpenAPI description (a request body or a response), kept apart from
 * the schema itself so the same schema serves elsewhere without them. Validation ignores them.
 */
export function withExamples<T extends TSchema>(schema: T, ...examples: unknown[]): T {
  return { ...schema, examples };
}

/** The empty 304 a collection answers when If-None-Match matches its ETag (see replyWithEtag). */
export const NotModified = Type.Null({ description: 'Not modified: If-None-Match matched the current ETag; empty body.' });

/**
 * `schema` or null, as one schema with `type: [t, "null"]` rather than an anyOf, so a bad value is
 * reported once, not once per branch — which matters in a 5,000-item batch.
 */
export function nullable<T extends TSchema & { type: string }>(schema: T, description?: string) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'], ...(description ? { description } : {}) });
}

/** An optional input field that also accepts null (clients often send null for "absent", and the read-backs write null there). */
export function orNull<T extends TSchema & { type: string }>(schema: T, description?: string) {
  return Type.Optional(nullable(schema, description));
}
