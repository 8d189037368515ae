// The operator's inputs and results (contract: operator side), declared once: the operator API validates and
// documents with them, and `wfs … --json` prints exactly the same result objects.
import { Type, type Static } from 'typebox';
import { OPTIONAL_GRANTS } from '../iam/provisioning.ts';

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

export const NewOrganisationBody = Type.Object({ name: Type.String({ description: 'Display name of the customer organisation' }) }, { additionalProperties: false });

export const NewCompanyBody = Type.Object(
  {
    organisationId: Id('Organisation the company belongs to'),
    name: Type.String(),
    timezone: Type.String({ description: 'IANA time zone, e.g. Europe/Amsterdam' }),
    currency: Type.String({ description: 'ISO 4217 code, e.g. EUR' }),
    locale: Type.Optional(Type.String({ description: 'BCP 47 tag; default en-GB' })),
  },
  { additionalProperties: false },
);

export const NewApiClientBody = Type.Object(
  {
    companyId: Id('Company whose data the client may read and write'),
    name: Type.String(),
    redirectUris: Type.Array(Type.String(), { description: 'Exact redirect URIs (loopback URIs match on any port)' }),
  },
  { additionalProperties: false },
);

export const NewApiUserBody = Type.Object({ clientId: Id('API Client the user logs in through'), email: Type.String() }, { additionalProperties: false });

export const RotateSigningKeyBody = Type.Object(
  {
    activateInSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 86_400, description: 'Seconds before the new key signs; at least how long verifiers cache the JWKS. Default 120.' }),
    ),
  },
  { additionalProperties: false },
);

export const Grant = Type.Union(OPTIONAL_GRANTS.map((g) => Type.Literal(g)), { description: 'A grant type the operator switches per client' });

export const ClientParams = Type.Object({ clientId: Id('API Client id') });
export const UserParams = Type.Object({ userId: Id('API User id') });
export const CompanyParams = Type.Object({ companyId: Id('Company id') });
export const GrantParams = Type.Object({ clientId: Id('API Client id'), grant: Grant });

const SHOWN_ONCE = 'Shown only this once; only a hash is stored.';

export const CreatedOrganisation = Type.Object({ organisationId: Type.String() });
export const CreatedCompany = Type.Object({ companyId: Type.String() });
export const ClientCredentials = Type.Object({ clientId: Type.String(), clientSecret: Type.String({ description: SHOWN_ONCE }) });
export const CreatedApiUser = Type.Object({ userId: Type.String(), email: Type.String(), secret: Type.String({ description: SHOWN_ONCE }) });
export const ClientGrants = Type.Object({ clientId: Type.String(), grants: Type.Array(Type.String(), { description: 'Enabled grant types; authorization_code always' }) });
export const ClientState = Type.Object({ clientId: Type.String(), disabled: Type.Boolean() });
export const UserState = Type.Object({ userId: Type.String(), disabled: Type.Boolean() });
export const RotatedSigningKey = Type.Object({ kid: Type.String(), activatesAt: Type.String({ format: 'date-time', description: 'When the new key starts signing' }) });

export type ClientCredentials = Static<typeof ClientCredentials>;
export type ClientState = Static<typeof ClientState>;
export type UserState = Static<typeof UserState>;
export type RotatedSigningKey = Static<typeof RotatedSigningKey>;
