// The shapes of single sign-on's operator inputs and results, declared once: providers.ts checks its
// input against them (so `wfs`, the operator API and the console refuse alike) and answers their
// Static types (so `wfs … --json` prints the same objects); the operator API documents with them.
import { Type, type Static } from 'typebox';
import { PATTERNS } from '../platform/schemas.ts';

const Issuer = Type.String({ maxLength: 2048, description: 'Issuer URL exactly as its discovery document names it: https (http on a loopback host only with SSO_ALLOW_INSECURE=1), no query, fragment or credentials, one tenant (no template such as {tenantid})' });
const ClientId = Type.String({ maxLength: 512, pattern: PATTERNS.nonBlank.pattern, description: 'The client id the provider issued to this service; stored without surrounding white space' });
const ClientSecret = Type.String({ maxLength: 4096, pattern: PATTERNS.nonBlank.pattern, description: 'Write-only: stored encrypted with SECRETS_KEY, never shown again' });
const Domains = Type.Array(Type.String({ maxLength: 253, pattern: PATTERNS.typedEmailDomain.pattern, description: 'An email domain such as example.com (IDNs in punycode); stored trimmed, in lower case, without a leading @' }), {
  minItems: 1,
  maxItems: 100,
  description: 'Email domains the provider owns, each listed once; a domain belongs to one provider across all organisations',
});

export const NewProviderBody = Type.Object({ issuer: Issuer, clientId: ClientId, clientSecret: ClientSecret, domains: Domains }, { additionalProperties: false });
export const ProviderChangeBody = Type.Object(
  { issuer: Type.Optional(Issuer), clientId: Type.Optional(ClientId), clientSecret: Type.Optional(ClientSecret), domains: Type.Optional(Domains) },
  { additionalProperties: false },
);
export const EnforcementBody = Type.Object({ enforceSso: Type.Boolean({ description: 'true: API Users of the organisation sign in only through its providers' }) }, { additionalProperties: false });

export const SsoProvider = Type.Object({
  providerId: Type.String(),
  organisationId: Type.String(),
  issuer: Type.String(),
  clientId: Type.String(),
  domains: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}, { description: 'An SSO provider; its client secret is never shown' });
export const OrganisationSso = Type.Object({ organisationId: Type.String(), enforceSso: Type.Boolean(), providers: Type.Array(SsoProvider) });
export const Enforcement = Type.Object({ organisationId: Type.String(), enforceSso: Type.Boolean() });
export const CreatedProvider = Type.Object({ providerId: Type.String() });
export const RemovedProvider = Type.Object({ providerId: Type.String(), removed: Type.Literal(true), revokedGrants: Type.Integer({ description: 'Grants made through the provider, now revoked' }) });

export type SsoProvider = Static<typeof SsoProvider>;
export type OrganisationSso = Static<typeof OrganisationSso>;
export type CreatedProvider = Static<typeof CreatedProvider>;
export type RemovedProvider = Static<typeof RemovedProvider>;
export type Enforcement = Static<typeof Enforcement>;
/** What an update changes: any of the new provider's fields. */
export type SsoProviderChange = Static<typeof ProviderChangeBody>;
export type NewSsoProvider = Static<typeof NewProviderBody> & { organisationId: string };
