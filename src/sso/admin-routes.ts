// The operator API of single sign-on (CONTRACT §8, §5): the `wfs` SSO commands over HTTP, behind
// ADMIN_TOKEN, answering the same JSON.
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import { Id } from '../platform/schemas.ts';
import { CreatedProvider, Enforcement, EnforcementBody, NewProviderBody, OrganisationSso, ProviderChangeBody, RemovedProvider, SsoProvider } from './schemas.ts';
import { requireOperator } from '../admin/guard.ts';
import { operatorSchema } from '../admin/routes.ts';
import { addSsoProvider, organisationSso, removeSsoProvider, setSsoEnforced, updateSsoProvider } from './providers.ts';
import type { SsoRuntime } from './runtime.ts';

/**
 * With attachValidation a route refuses what the domain cannot check itself: bad path parameters and a
 * body that is no JSON object. A provider body's field errors go on to providers.ts.
 */
function refuseUnlessBodyFields(request: FastifyRequest): void {
  const error = request.validationError;
  const body: unknown = request.body;
  if (error && (error.validationContext !== 'body' || typeof body !== 'object' || body === null || Array.isArray(body))) throw error;
}

const OrganisationParams = Type.Object({ organisationId: Id('Organisation id') });
const ProviderParams = Type.Object({ providerId: Id('SSO provider id') });

export async function ssoAdminRoutes(app: App, { sso }: { sso: SsoRuntime }): Promise<void> {
  const { deps, box } = sso;
  const settings = { box, allowInsecure: deps.config.ssoAllowInsecure };
  app.addHook('onRequest', async (request) => requireOperator(deps.config.adminToken, request));

  app.get('/api/v1/admin/organisations/:organisationId/sso', { schema: { params: OrganisationParams, ...operatorSchema('adminGetOrganisationSso', 'The organisation\'s SSO providers (never their secrets) and whether it enforces SSO', 200, OrganisationSso) } },
    async (request) => organisationSso(deps.db, request.params.organisationId));

  app.put('/api/v1/admin/organisations/:organisationId/sso/enforcement', { schema: { params: OrganisationParams, body: EnforcementBody, ...operatorSchema('adminSetSsoEnforcement', 'Enforce SSO for an organisation (its API Users\' secrets stop signing in, and the grants of earlier secret logins are revoked: their refresh tokens fail at once, their ID tokens within 5 seconds; client-credentials grants stay) or stop enforcing it (revokes nothing)', 200, Enforcement, 400) } },
    async (request) => setSsoEnforced(deps.db, request.params.organisationId, request.body.enforceSso, undefined, deps.clock.now()));

  // The provider bodies are checked by providers.ts against these same schemas, together with what no
  // schema can say (the issuer for this deployment, a domain listed twice): attachValidation lets the
  // route hand a failing body on, so the operator gets every field's errors in one answer.
  app.post('/api/v1/admin/organisations/:organisationId/sso/providers', { attachValidation: true, schema: { params: OrganisationParams, body: NewProviderBody, ...operatorSchema('adminAddSsoProvider', 'Add an OpenID provider; the issuer is checked against its discovery document', 201, CreatedProvider, 400, 409) } },
    async (request, reply) => {
      refuseUnlessBodyFields(request);
      return reply.code(201).send(await addSsoProvider(deps.db, settings, { organisationId: request.params.organisationId, ...request.body }, undefined, deps.clock.now()));
    });

  app.patch('/api/v1/admin/sso-providers/:providerId', { attachValidation: true, schema: { params: ProviderParams, body: ProviderChangeBody, ...operatorSchema('adminUpdateSsoProvider', 'Change a provider\'s issuer, client id, client secret or domains (domains replace the list)', 200, SsoProvider, 400, 409) } },
    async (request) => {
      refuseUnlessBodyFields(request);
      return updateSsoProvider(deps.db, settings, request.params.providerId, request.body, deps.clock.now());
    });

  app.delete('/api/v1/admin/sso-providers/:providerId', { schema: { params: ProviderParams, ...operatorSchema('adminRemoveSsoProvider', 'Remove a provider: revokes every grant made through it', 200, RemovedProvider) } },
    async (request) => removeSsoProvider(deps.db, request.params.providerId, {}, deps.clock.now()));
}
