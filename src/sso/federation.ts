// Single sign-on on the login page (CONTRACT §8), as the LoginFederation the identity feature calls:
// which clients ask for the email first, where an email goes, and the start of a provider flow (the
// pending authorization stored server-side, the browser bound by a cookie).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../iam/audit.ts';
import type { AuthorizationRequest } from '../iam/authorize-request.ts';
import type { OAuthClient } from '../iam/clients.ts';
import { NO_FEDERATION, type EmailRoute, type FederatedLogin, type LoginFederation } from '../iam/federation.ts';
import { enforcesSso, organisationEndpoints, providerForEmail } from './providers.ts';
import { rememberPending } from './pending.ts';
import { SsoFailure } from './relying-party.ts';
import { callbackRoutes } from './callback.ts';
import { browserBinding, type SsoRuntime } from './runtime.ts';

export function ssoFederation(runtime: SsoRuntime): LoginFederation {
  const { deps, box, rp } = runtime;

  async function forClient(client: OAuthClient): Promise<FederatedLogin> {
    const enforced = await enforcesSso(deps.db, client.organisationId);
    if (!client.grants.includes('sso')) return enforced ? { ...NO_FEDERATION, secretAllowed: false } : NO_FEDERATION;
    const formTargets = await rp.authorizationOrigins(await organisationEndpoints(deps.db, box, client.organisationId));
    return { identifierFirst: true, secretAllowed: !enforced, formTargets };
  }

  async function route(request: FastifyRequest, reply: FastifyReply, auth: AuthorizationRequest, email: string): Promise<EmailRoute> {
    const provider = await providerForEmail(deps.db, box, auth.client.organisationId, email);
    if (!provider) {
      if (!(await enforcesSso(deps.db, auth.client.organisationId))) return { to: 'secret' };
      return { to: 'refused', status: 403, message: 'Your organisation signs you in through its own identity provider, and no provider of your organisation serves this email\'s domain. Check the email, or ask your administrator.' };
    }
    try {
      const start = await rp.start(provider, email.trim().toLowerCase());
      await rememberPending(deps.db, box, {
        state: start.state,
        providerId: provider.id,
        clientId: auth.client.id,
        request: auth.carried,
        nonce: start.nonce,
        codeVerifier: start.codeVerifier,
        browserBinding: browserBinding(request, reply, runtime.cookie),
      }, deps.clock.now());
      return { to: 'provider', url: start.url.href };
    } catch (error) {
      if (!(error instanceof SsoFailure)) throw error;
      await recordAudit(deps.db, { event: 'sso_login_failed', outcome: 'failure', clientId: auth.client.id, address: request.ip, detail: error.reason }, deps.clock.now());
      request.log.warn({ provider: provider.id, reason: error.reason, detail: error.detail }, 'SSO provider unavailable');
      return { to: 'refused', status: 502, message: `${error.message} Try again later${(await enforcesSso(deps.db, auth.client.organisationId)) ? '' : ', or sign in with the API User\'s secret'}.` };
    }
  }

  return { forClient, route, routes: (app, { throttle }) => callbackRoutes(app, { runtime, throttle }) };
}
