// The shapes of the webhook endpoints API (CONTRACT §7), one TypeBox schema each: they validate,
// serialise and document. And the message types an endpoint can subscribe to.
import { Type, type Static } from 'typebox';
import { nullable } from '../platform/schemas.ts';
import { CHANGE_TYPES } from '../changes/change-log.ts';

export { CHANGE_TYPES };

/** Sent by POST …/test, whatever the endpoint's types. */
export const TEST_MESSAGE_TYPE = 'webhook.test';

const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'Where messages are POSTed: an https URL whose host resolves to public addresses only.' });
const Types = Type.Array(Type.String({ enum: [...CHANGE_TYPES] }), {
  minItems: 1,
  maxItems: CHANGE_TYPES.length,
  uniqueItems: true,
  description: 'Change types to receive (`user.created`, …); absent or null for every type.',
});
const Description = Type.String({ maxLength: 500 });

export const EndpointInput = Type.Object(
  {
    url: Url,
    types: Type.Optional(nullable(Types)),
    description: Type.Optional(nullable(Description)),
  },
  { additionalProperties: false },
);
export type EndpointInput = Static<typeof EndpointInput>;

export const EndpointChanges = Type.Object(
  {
    url: Type.Optional(Url),
    types: Type.Optional(nullable(Types)),
    description: Type.Optional(nullable(Description)),
    enabled: Type.Optional(Type.Boolean({ description: 'false pauses delivery; true resumes it with the first undelivered change (the one that failed included).' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type EndpointChanges = Static<typeof EndpointChanges>;

export const Endpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  types: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Change types delivered; null for every type.' }),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([Type.Literal('gone'), Type.Literal('retries_exhausted'), Type.Literal('manual'), Type.Null()], {
    description: 'Why delivery is off: `gone` (the receiver answered 410), `retries_exhausted` (the retry schedule ran out), `manual` (PATCH enabled false); null while enabled.',
  }),
  createdAt: Type.String({ description: 'ISO 8601 instant in the company offset.' }),
  updatedAt: Type.String(),
});
export type Endpoint = Static<typeof Endpoint>;

const Secret = Type.String({ description: 'The signing secret, `whsec_` and the base64 of 32 random bytes. Shown only here: store it.' });

export const CreatedEndpoint = Type.Object({ ...Endpoint.properties, secret: Secret });

export const RotatedSecret = Type.Object({
  secret: Secret,
  previousSecretExpiresAt: Type.String({ description: 'Until then messages carry a signature with the secret this rotation replaced too (secrets replaced earlier keep their own ends).' }),
});

export const Delivery = Type.Object({
  id: Type.String(),
  messageId: Type.String({ description: 'The `webhook-id` header: the change id (the same on every attempt and in a replay).' }),
  seq: Type.Union([Type.Integer(), Type.Null()], { description: 'The change\'s seq; null for a test message.' }),
  type: Type.String(),
  attempt: Type.Integer({ minimum: 1, description: 'Attempts at this message so far (1 for the first).' }),
  attemptedAt: Type.String(),
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'The receiver\'s status; null when no answer came.' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'What failed, in words; null on success.' }),
  durationMs: Type.Integer({ minimum: 0 }),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()], { description: 'When the message is tried again: the wait counted from the end of this attempt (not `attemptedAt`, its start); null after a success or when the endpoint was disabled.' }),
});

export const ReplayPeriod = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'Inclusive instant.' }),
    to: Type.String({ format: 'date-time', description: 'Exclusive instant.' }),
  },
  { additionalProperties: false },
);

export const Queued = Type.Object({ queued: Type.Integer({ minimum: 0, description: 'Messages queued.' }) });

export const EndpointParams = Type.Object({ id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
export const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 100 }), deliveryId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
