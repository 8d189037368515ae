// The organisation's single sign-on (CONTRACT §6, §8): its OpenID providers (issuer, client id, email
// domains; the client secret is write-only), adding or editing one (after a step-up: it takes a
// secret; an empty secret field on an edit keeps the stored one) and removing one (which revokes the grants made through it), and whether the organisation enforces SSO.
// Every change goes through src/sso's domain functions with the console user as actor. An issuer
// whose discovery fails is explained by category, never with addresses (those go to the log).
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import { ProblemError } from '../platform/errors.ts';
import { secretBox } from '../platform/sealed-secrets.ts';
import { addSsoProvider, organisationSso, removeSsoProvider, setSsoEnforced, updateSsoProvider } from '../sso/providers.ts';
import type { Console } from './routes.ts';
import { actorOf } from './audit.ts';
import { lines, orShowProblem } from './forms.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';

const Form = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 128 })),
  issuer: Type.Optional(Type.String({ maxLength: 2048 })),
  clientId: Type.Optional(Type.String({ maxLength: 512 })),
  clientSecret: Type.Optional(Type.String({ maxLength: 4096 })),
  domains: Type.Optional(Type.String({ maxLength: 8192 })),
  enforce: Type.Optional(Type.String({ maxLength: 8 })),
});
const Params = Type.Object({ providerId: Type.String({ maxLength: 64 }) });

/**
 * Runs a provider change. A discovery that failed is shown on the page by its category only (the
 * problem's field error: "Issuer could not be reached: the connection to it failed"); its detail,
 * with addresses, ports and error codes, is the operator's: logged at warn under the request id.
 */
async function loggingDiscovery<T>(request: FastifyRequest, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof ProblemError && error.code === 'sso_discovery_failed') request.log.warn({ detail: error.message }, 'SSO discovery failed');
    throw error;
  }
}

export async function ssoRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;
  const settings = async () => ({ box: await secretBox(deps.db, deps.config), allowInsecure: deps.config.ssoAllowInsecure });

  async function page(request: FastifyRequest, reply: FastifyReply, status = 200, extra: { message?: string; typed?: Record<string, string> } = {}): Promise<FastifyReply> {
    const { organisationId } = request.consoleSession!.user;
    const [organisation, sso] = await Promise.all([requireOrganisation(deps.db, organisationId), organisationSso(deps.db, organisationId)]);
    return con.render(request, reply, 'sso', { title: 'Single sign-on', organisation, sso, callbackUrl: `${deps.config.authUrl}/oauth/sso/callback`, stepUp: con.stepUpDue(request, '/sso'), typed: {}, ...extra }, status);
  }

  app.get('/console/sso', { config: { consoleAccess: 'member' } }, async (request, reply) => page(request, reply));

  app.post('/console/sso/providers', { config: { consoleAccess: 'admin' }, schema: { body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    const stepUp = con.stepUpDue(request, '/sso');
    if (stepUp) return reply.redirect(stepUp, 303);
    const { issuer = '', clientId = '', clientSecret = '', domains = '' } = request.body;
    return orShowProblem(async () => {
      await loggingDiscovery(request, async () => addSsoProvider(deps.db, await settings(), { organisationId: session.user.organisationId, issuer, clientId, clientSecret, domains: lines(domains) }, actorOf(session.user), deps.clock.now()));
      return reply.redirect(con.url('/sso'), 303);
    }, (status, message) => page(request, reply, status, { message, typed: { issuer, clientId, domains } }));
  });

  app.post('/console/sso/providers/:providerId', { config: { consoleAccess: 'admin' }, schema: { params: Params, body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    const stepUp = con.stepUpDue(request, '/sso');
    if (stepUp) return reply.redirect(stepUp, 303);
    const { clientId = '', clientSecret = '', domains = '' } = request.body;
    const change = { clientId, domains: lines(domains), ...(clientSecret === '' ? {} : { clientSecret }) };
    return orShowProblem(async () => {
      await updateSsoProvider(deps.db, await settings(), request.params.providerId, change, deps.clock.now(), { organisationId: session.user.organisationId, actor: actorOf(session.user) });
      return reply.redirect(con.url('/sso'), 303);
    }, (status, message) => page(request, reply, status, { message }));
  });

  app.post('/console/sso/providers/:providerId/remove', { config: { consoleAccess: 'admin' }, schema: { params: Params, body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    await removeSsoProvider(deps.db, request.params.providerId, { organisationId: session.user.organisationId, actor: actorOf(session.user) }, deps.clock.now());
    return reply.redirect(con.url('/sso'), 303);
  });

  app.post('/console/sso/enforcement', { config: { consoleAccess: 'admin' }, schema: { body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    await setSsoEnforced(deps.db, session.user.organisationId, request.body.enforce === 'on', actorOf(session.user), deps.clock.now());
    return reply.redirect(con.url('/sso'), 303);
  });
}
