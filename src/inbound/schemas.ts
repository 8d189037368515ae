// Schema pieces the inbound and timeclock routes share (candidates for src/platform/schemas.ts).
import { Type, type Static, type TSchema } from 'typebox';

/** The empty 304 a collection answers when If-None-Match matches its ETag (see replyWithEtag). */
export const NotModified = Type.Null({ description: 'Not modified: If-None-Match matched the current ETag; empty body.' });

/**
 * An optional input field that also accepts null (clients often send null for "absent", and the
 * read-backs write null there). One schema with `type: [t, "null"]` rather than an anyOf, so a bad
 * value is reported once, not once per branch — which matters in a 5,000-item batch.
 */
export function orNull<T extends TSchema & { type: string }>(schema: T, description?: string) {
  return Type.Optional(Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'], ...(description ? { description } : {}) }));
}
