// An optional input field that also accepts null (clients often send null for "absent", and the
// read-backs write null there). Expressed as one schema with `type: [t, "null"]` rather than an
// anyOf, so a bad value is reported once, not once per branch — which matters in a 5,000-item batch.
import { Type, type Static, type TSchema } from 'typebox';

export function orNull<T extends TSchema & { type: string }>(schema: T, description?: string) {
  return Type.Optional(Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'], ...(description ? { description } : {}) }));
}
