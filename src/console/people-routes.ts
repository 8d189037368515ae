// Console users of the organisation: the list, invitations by an admin (the link shown once, after a
// step-up), role changes and removal. Every change is audited with the acting console user.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import type { Console } from './routes.ts';
import { actorOf, auditConsole } from './audit.ts';
import { changeConsoleRole, inviteConsoleUser, isConsoleRole, listConsoleUsers, listPendingInvitations, removeConsoleUser, type Invitation } from './people.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';
import { orShowProblem } from './forms.ts';

const Form = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 128 })),
  email: Type.Optional(Type.String({ maxLength: 320 })),
  role: Type.Optional(Type.String({ maxLength: 16 })),
});
const Params = Type.Object({ userId: Type.String({ maxLength: 64 }) });

export async function peopleRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;
  const now = () => deps.clock.now();

  async function page(request: FastifyRequest, reply: FastifyReply, status = 200, extra: { message?: string; invitation?: Invitation & { email: string } } = {}): Promise<FastifyReply> {
    const { organisationId } = request.consoleSession!.user;
    const [organisation, people, pending] = await Promise.all([
      requireOrganisation(deps.db, organisationId),
      listConsoleUsers(deps.db, organisationId),
      listPendingInvitations(deps.db, organisationId, now()),
    ]);
    return con.render(request, reply, 'console-users', { title: 'Console users', organisation, people, pending, stepUp: con.stepUpDue(request, '/console-users'), ...extra }, status);
  }

  /** A refused change (the last admin, a taken address) shows the page again with the reason. */
  const orExplain = (request: FastifyRequest, reply: FastifyReply, work: () => Promise<FastifyReply>) =>
    orShowProblem(work, (status, message) => page(request, reply, status, { message }));

  app.get('/console/console-users', { config: { consoleAccess: 'member' } }, async (request, reply) => page(request, reply));

  app.post('/console/console-users', { config: { consoleAccess: 'admin' }, schema: { body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    const stepUp = con.stepUpDue(request, '/console-users');
    if (stepUp) return reply.redirect(stepUp, 303);
    const role = request.body.role ?? 'viewer';
    if (!isConsoleRole(role)) return page(request, reply, 400, { message: 'The role must be admin or viewer.' });
    return orExplain(request, reply, async () => {
      const invitation = await inviteConsoleUser(deps.db, { organisationId: session.user.organisationId, email: request.body.email ?? '', role, invitedBy: session.user.id }, deps.config.authUrl, now());
      await auditConsole(deps.db, { event: 'console_change', outcome: 'success', organisationId: session.user.organisationId, actor: actorOf(session.user), address: request.ip, detail: 'console_user_invited', context: { email: invitation.email, role } }, now());
      return page(request, reply, 200, { invitation });
    });
  });

  app.post('/console/console-users/:userId/role', { config: { consoleAccess: 'admin' }, schema: { params: Params, body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    const role = request.body.role;
    if (!isConsoleRole(role)) return page(request, reply, 400, { message: 'The role must be admin or viewer.' });
    return orExplain(request, reply, async () => {
      const changed = await changeConsoleRole(deps.db, session.user.organisationId, request.params.userId, role);
      await auditConsole(deps.db, { event: 'console_change', outcome: 'success', organisationId: session.user.organisationId, actor: actorOf(session.user), address: request.ip, detail: 'console_user_role_changed', context: { consoleUserId: changed.id, email: changed.email, role } }, now());
      return reply.redirect(con.url('/console-users'), 303);
    });
  });

  app.post('/console/console-users/:userId/remove', { config: { consoleAccess: 'admin' }, schema: { params: Params, body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    return orExplain(request, reply, async () => {
      const removed = await removeConsoleUser(deps.db, session.user.organisationId, request.params.userId);
      await auditConsole(deps.db, { event: 'console_change', outcome: 'success', organisationId: session.user.organisationId, actor: actorOf(session.user), address: request.ip, detail: 'console_user_removed', context: { consoleUserId: removed.id, email: removed.email } }, now());
      return reply.redirect(con.url(removed.id === session.user.id ? '/login' : '/console-users'), 303);
    });
  });
}
