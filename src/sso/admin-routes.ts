// The operator API of single sign-on (CONTRACT §8, §5): the `wfs` SSO commands over HTTP, behind
// ADMIN_TOKEN, answering the same JSON.
import { Type } from 'typebox';
import type { App } from '../platform/http.ts';
import { Id } from '../platform/schemas.ts';
import { requireOperator } from '../admin/guard.ts';
import { operatorSchema } from '../admin/routes.ts';
import { addSsoProvider, organisationSso, removeSsoProvider, setSsoEnforced, updateSsoProvider } from './providers.ts';
import type { SsoRuntime } from './runtime.ts';

const OrganisationParams = Type.Object({ organisationId: Id('Organisation id') });
const ProviderParams = Type.Object({ providerId: Id('SSO provider id') });

const Issuer = Type.String({ maxLength: 2048, description: 'Issuer URL exactly as its discovery document names it: https (http on a loopback host only with SSO_ALLOW_INSECURE=1)' });
const ClientId = Type.String({ maxLength: 512, description: 'The client id the provider issued to this service' });
const ClientSecret = Type.String({ maxLength: 4096, description: 'Write-only: stored encrypted with SECRETS_KEY, never shown again' });
const Domains = Type.Array(Type.String({ maxLength: 253 }), { maxItems: 100, description: 'Email domains the provider owns; a domain belongs to one provider across all organisations' });

const NewProviderBody = Type.Object({ issuer: Issuer, clientId: ClientId, clientSecret: ClientSecret, domains: Domains }, { additionalProperties: false });
const ProviderChangeBody = Type.Object(
  { issuer: Type.Optional(Issuer), clientId: Type.Optional(ClientId), clientSecret: Type.Optional(ClientSecret), domains: Type.Optional(Domains) },
  { additionalProperties: false },
);
const EnforcementBody = Type.Object({ enforceSso: Type.Boolean({ description: 'true: API Users of the organisation sign in only through its providers' }) }, { additionalProperties: false });

const SsoProvider = Type.Object({
  providerId: Type.String(),
  organisationId: Type.String(),
  issuer: Type.String(),
  clientId: Type.String(),
  domains: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}, { description: 'An SSO provider; its client secret is never shown' });
const OrganisationSso = Type.Object({ organisationId: Type.String(), enforceSso: Type.Boolean(), providers: Type.Array(SsoProvider) });
const Enforcement = Type.Object({ organisationId: Type.String(), enforceSso: Type.Boolean() });
const CreatedProvider = Type.Object({ providerId: Type.String() });
const RemovedProvider = Type.Object({ providerId: Type.String(), removed: Type.Literal(true), revokedGrants: Type.Integer({ description: 'Grants made through the provider, now revoked' }) });

export async function ssoAdminRoutes(app: App, { sso }: { sso: SsoRuntime }): Promise<void> {
  const { ctx, box } = sso;
  const settings = { box, allowInsecure: ctx.config.ssoAllowInsecure };
  app.addHook('onRequest', async (request) => requireOperator(ctx.config.adminToken, request));

  app.get('/api/v1/admin/organisations/:organisationId/sso', { schema: { params: OrganisationParams, ...operatorSchema('adminGetOrganisationSso', 'The organisation\'s SSO providers (never their secrets) and whether it enforces SSO', 200, OrganisationSso) } },
    async (request) => organisationSso(ctx.db, request.params.organisationId));

  app.put('/api/v1/admin/organisations/:organisationId/sso/enforcement', { schema: { params: OrganisationParams, body: EnforcementBody, ...operatorSchema('adminSetSsoEnforcement', 'Enforce SSO for an organisation (its API Users\' secrets stop signing in) or stop enforcing it', 200, Enforcement, 400) } },
    async (request) => setSsoEnforced(ctx.db, request.params.organisationId, request.body.enforceSso));

  app.post('/api/v1/admin/organisations/:organisationId/sso/providers', { schema: { params: OrganisationParams, body: NewProviderBody, ...operatorSchema('adminAddSsoProvider', 'Add an OpenID provider; the issuer is checked against its discovery document', 201, CreatedProvider, 400, 409) } },
    async (request, reply) => reply.code(201).send(await addSsoProvider(ctx.db, settings, { organisationId: request.params.organisationId, ...request.body })));

  app.patch('/api/v1/admin/sso-providers/:providerId', { schema: { params: ProviderParams, body: ProviderChangeBody, ...operatorSchema('adminUpdateSsoProvider', 'Change a provider\'s issuer, client id, client secret or domains (domains replace the list)', 200, SsoProvider, 400, 409) } },
    async (request) => updateSsoProvider(ctx.db, settings, request.params.providerId, request.body));

  app.delete('/api/v1/admin/sso-providers/:providerId', { schema: { params: ProviderParams, ...operatorSchema('adminRemoveSsoProvider', 'Remove a provider: revokes every grant made through it', 200, RemovedProvider) } },
    async (request) => removeSsoProvider(ctx.db, request.params.providerId));
}
