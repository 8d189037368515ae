// The operator's inputs and results (contract: operator side), declared once: the operator API validates and
// documents with them, and `wfs … --json` prints exactly the same result objects.
// Provisioning's own inputs and results (organisations, companies, API Clients and Users) are
// declared beside the domain functions, in src/iam/provisioning-schemas.ts.
import { Type, type Static } from 'typebox';
import { Id, PATTERNS } from '../platform/schemas.ts';
import { OPTIONAL_GRANTS } from '../iam/provisioning.ts';
import { GRANT_REQUEST_STATUSES } from '../iam/grant-requests.ts';

export const RotateSigningKeyBody = Type.Object(
  {
    activateInSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 86_400, description: 'Seconds before the new key signs; at least how long verifiers cache the JWKS. Default 120.' }),
    ),
  },
  { additionalProperties: false },
);

export const RotateClientSecretBody = Type.Object(
  {
    overlapSeconds: Type.Optional(Type.Integer({
      minimum: 1,
      maximum: 604_800,
      description: 'A planned rotation: the current secret keeps working this many seconds beside the new one (at most 7 days) and no grant is revoked. Without it the rotation is immediate and revokes every grant.',
    })),
  },
  { additionalProperties: false },
);

export const Grant = Type.Union(OPTIONAL_GRANTS.map((g) => Type.Literal(g)), { description: 'A grant type the operator switches per client' });

export const ClientParams = Type.Object({ clientId: Id('API Client id') });
export const UserParams = Type.Object({ userId: Id('API User id') });
export const CompanyParams = Type.Object({ companyId: Id('Company id') });
export const GrantParams = Type.Object({ clientId: Id('API Client id'), grant: Grant });

export const ClientGrants = Type.Object({ clientId: Type.String(), grants: Type.Array(Type.String(), { description: 'Enabled grant types; authorization_code always' }) });
export const ClientState = Type.Object({ clientId: Type.String(), disabled: Type.Boolean() });
export const UserState = Type.Object({ userId: Type.String(), disabled: Type.Boolean() });
export const RotatedSigningKey = Type.Object({ kid: Type.String(), activatesAt: Type.String({ format: 'date-time', description: 'When the new key starts signing' }) });
export const SigningKeyParams = Type.Object({ kid: Id('The kid of a published signing key (as in the JWKS)') });
export const WithdrawnSigningKey = Type.Object({
  kid: Type.String({ description: 'The withdrawn key: no longer in the JWKS, and every token it signed is refused' }),
  withdrawnAt: Type.String({ format: 'date-time' }),
  replacement: Type.Union([RotatedSigningKey, Type.Null()], {
    description: 'The key created to sign at once, when the withdrawn key was the one signing; null when another key already signs',
  }),
});

export const SecretOverlapEnded = Type.Object({ clientId: Type.String(), previousSecretExpiresAt: Type.Null({ description: 'Only the current secret is accepted now' }) });

const GrantRequestStatus = Type.Union(GRANT_REQUEST_STATUSES.map((s) => Type.Literal(s)));

export const GrantRequest = Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  grant: Grant,
  reason: Type.String({ description: 'Why the customer asks for the grant' }),
  status: GrantRequestStatus,
  createdAt: Type.String({ format: 'date-time' }),
  decidedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  declineReason: Type.Union([Type.String(), Type.Null()], { description: 'Why the operator declined; null otherwise' }),
});
export const GrantRequestList = Type.Object({ requests: Type.Array(GrantRequest, { description: 'Newest first' }) });
export const GrantRequestQuery = Type.Object(
  { status: Type.Optional(GrantRequestStatus), clientId: Type.Optional(Id('Only requests of this API Client')), organisationId: Type.Optional(Id('Only requests of this organisation')) },
  { additionalProperties: false },
);
export const GrantRequestParams = Type.Object({ requestId: Id('Grant request id') });
export const DeclineGrantRequestBody = Type.Object(
  { reason: Type.String({ maxLength: 1000, pattern: PATTERNS.nonBlank.pattern, description: 'Shown to the customer' }) },
  { additionalProperties: false },
);

export type ClientState = Static<typeof ClientState>;
export type UserState = Static<typeof UserState>;
export type RotatedSigningKey = Static<typeof RotatedSigningKey>;
export type WithdrawnSigningKey = Static<typeof WithdrawnSigningKey>;
