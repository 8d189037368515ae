// What provisioning takes and answers (contract: operator side), declared once: the domain functions
// check their input against these schemas (so `wfs`, the operator API and the console refuse alike),
// the operator API validates and documents with them, and `wfs … --json` prints the same results.
import { Type, type Static } from 'typebox';
import { Id, PATTERNS, TypedEmail } from '../platform/schemas.ts';

const Name = (description: string) => Type.String({ maxLength: 200, pattern: PATTERNS.nonBlank.pattern, description: `${description}; stored without surrounding white space` });

const SHOWN_ONCE = 'Shown only this once; only a hash is stored.';

export const NewOrganisation = Type.Object({ name: Name('Display name of the customer organisation') }, { additionalProperties: false });

export const NewCompany = Type.Object(
  {
    organisationId: Id('Organisation the company belongs to'),
    name: Name('Display name of the company'),
    timezone: Type.String({
      format: 'time-zone',
      maxLength: 64,
      description: 'IANA time zone, e.g. Europe/Amsterdam (any case; stored as the IANA database spells it, a link such as Asia/Kolkata as typed)',
    }),
    currency: Type.String({ pattern: PATTERNS.currency.pattern, description: 'ISO 4217 code, e.g. EUR' }),
    locale: Type.Optional(Type.String({ maxLength: 64, pattern: PATTERNS.locale.pattern, description: 'BCP 47 tag; default en-GB' })),
  },
  { additionalProperties: false },
);

/** The most redirect URIs a client registers. */
export const MAX_REDIRECT_URIS = 20;

export const RedirectUris = Type.Array(Type.String({ maxLength: 2000 }), {
  minItems: 1,
  maxItems: MAX_REDIRECT_URIS,
  description: 'Exact redirect URIs (loopback URIs match on any port): https, or http (the operator anywhere, a console user on a loopback host only)',
});

export const NewApiClient = Type.Object(
  {
    companyId: Id('Company whose data the client may read and write'),
    name: Name('Display name of the client'),
    redirectUris: RedirectUris,
  },
  { additionalProperties: false },
);

export const NewApiUser = Type.Object(
  {
    clientId: Id('API Client the user logs in through'),
    email: TypedEmail('The user\'s email address'),
  },
  { additionalProperties: false },
);

export const CreatedOrganisation = Type.Object({ organisationId: Type.String() });
export const CreatedCompany = Type.Object({ companyId: Type.String() });
export const ClientCredentials = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.String({ description: SHOWN_ONCE }),
  previousSecretExpiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'Rotation with overlap only: until when the previous secret is still accepted' })),
});
export const CreatedApiUser = Type.Object({ userId: Type.String(), email: Type.String(), secret: Type.String({ description: SHOWN_ONCE }) });

export type NewOrganisation = Static<typeof NewOrganisation>;
export type NewCompany = Static<typeof NewCompany>;
export type NewApiClient = Static<typeof NewApiClient>;
export type NewApiUser = Static<typeof NewApiUser>;
export type CreatedOrganisation = Static<typeof CreatedOrganisation>;
export type CreatedCompany = Static<typeof CreatedCompany>;
export type ClientCredentials = Static<typeof ClientCredentials>;
export type CreatedApiUser = Static<typeof CreatedApiUser>;
