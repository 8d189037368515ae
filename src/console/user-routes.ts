// API Users of a client: the list and the create form (the secret shown once), resetting a secret
// (shown once; the user's tokens are revoked), disabling, enabling, revoking all its sessions.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import { getClient, listUsers } from '../iam/organisation-reads.ts';
import { createUser } from '../iam/provisioning.ts';
import { requireUser } from '../iam/organisation-scope.ts';
import { resetUserSecret, revokeUserSessions, setUserDisabled } from '../iam/user-admin.ts';
import type { Console } from './routes.ts';
import { actorOf } from './audit.ts';
import { orShowProblem } from './forms.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';

const Form = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 128 })),
  email: Type.Optional(Type.String({ maxLength: 1000 })),
});
const ClientParams = Type.Object({ clientId: Type.String({ maxLength: 64 }) });
const UserParams = Type.Object({ userId: Type.String({ maxLength: 64 }) });

export async function userRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;
  const now = () => deps.clock.now();
  const orgOf = (request: FastifyRequest) => request.consoleSession!.user.organisationId;
  const actor = (request: FastifyRequest) => actorOf(request.consoleSession!.user);

  async function usersPage(request: FastifyRequest, reply: FastifyReply, clientId: string, status = 200, extra: { message?: string; notice?: string; form?: { email: string } } = {}): Promise<FastifyReply> {
    const organisationId = orgOf(request);
    const [client, users, organisation] = await Promise.all([getClient(deps.db, organisationId, clientId, now()), listUsers(deps.db, organisationId, clientId), requireOrganisation(deps.db, organisationId)]);
    return con.render(request, reply, 'users', { title: `API Users of ${client.name}`, organisation, client, users, stepUp: con.stepUpDue(request, `/clients/${clientId}/users`), ...extra }, status);
  }

  /** The client page of a user's actions: the user is looked up within the organisation first (404 otherwise). */
  const clientOfUser = async (request: FastifyRequest, userId: string) => (await requireUser(deps.db, orgOf(request), userId)).client_id;

  app.get('/console/clients/:clientId/users', { config: { consoleAccess: 'member' }, schema: { params: ClientParams } }, async (request, reply) => usersPage(request, reply, request.params.clientId));

  app.post('/console/clients/:clientId/users', { config: { consoleAccess: 'admin' }, schema: { params: ClientParams, body: Form } }, async (request, reply) => {
    const { clientId } = request.params;
    const stepUp = con.stepUpDue(request, `/clients/${clientId}/users`);
    if (stepUp) return reply.redirect(stepUp, 303);
    const email = request.body.email ?? '';
    return orShowProblem(async () => {
      const created = await createUser(deps.db, orgOf(request), { clientId, email }, actor(request), now());
      return con.render(request, reply, 'user-secret', { title: 'API User created', heading: `API User ${created.email} created`, clientId, ...created });
    }, (status, message) => usersPage(request, reply, clientId, status, { message, form: { email } }));
  });

  app.post('/console/users/:userId/reset-secret', { config: { consoleAccess: 'admin' }, schema: { params: UserParams, body: Form } }, async (request, reply) => {
    const clientId = await clientOfUser(request, request.params.userId);
    const stepUp = con.stepUpDue(request, `/clients/${clientId}/users`);
    if (stepUp) return reply.redirect(stepUp, 303);
    const reset = await resetUserSecret(deps.db, orgOf(request), request.params.userId, actor(request));
    return con.render(request, reply, 'user-secret', { title: 'New user secret', heading: `New secret for ${reset.email}`, clientId, ...reset });
  });

  app.post('/console/users/:userId/revoke-sessions', { config: { consoleAccess: 'admin' }, schema: { params: UserParams, body: Form } }, async (request, reply) => {
    const clientId = await clientOfUser(request, request.params.userId);
    const revoked = await revokeUserSessions(deps.db, orgOf(request), request.params.userId, actor(request));
    return usersPage(request, reply, clientId, 200, { notice: `Signed the user out everywhere (${revoked.revokedGrants.length} session${revoked.revokedGrants.length === 1 ? '' : 's'} revoked).` });
  });

  for (const disabled of [true, false]) {
    app.post(disabled ? '/console/users/:userId/disable' : '/console/users/:userId/enable', { config: { consoleAccess: 'admin' }, schema: { params: UserParams, body: Form } }, async (request, reply) => {
      const clientId = await clientOfUser(request, request.params.userId);
      await setUserDisabled(deps.db, orgOf(request), request.params.userId, disabled, actor(request));
      return usersPage(request, reply, clientId, 200, { notice: disabled ? 'The user is disabled; its tokens are revoked.' : 'The user is enabled.' });
    });
  }
}
