// Schemas shared by every feature: the problem-details body and the collection envelope.
import { Type, type TSchema } from 'typebox';

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable error code; see docs/errors.md.' }),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
    requestId: Type.String(),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (problem+json, code names the rule)',
  401: 'Missing, invalid, expired or revoked ID token',
  404: 'Not found within the token\'s reach',
  409: 'Conflict',
  413: 'Body over 2 MiB',
  415: 'Body is not application/json',
  429: 'Rate limited; see Retry-After',
  503: 'Database unavailable; retry',
};

/** Response schemas for the given error statuses, each a problem+json body. */
export function problemResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, { ...Problem, description: DESCRIPTIONS[s] ?? 'Error' }]));
}

export function Collection<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` to get the next page; null on the last page.' }),
  });
}
