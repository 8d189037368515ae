// Accepting an invitation: a password first, then a TOTP authenticator, finished only by a right
// code. The invitation is used up in the same transaction that creates the console user.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import { ProblemError } from '../platform/errors.ts';
import type { Console } from './routes.ts';
import { auditConsole } from './audit.ts';
import { choosePassword, completeInvitation, openInvitation, passwordProblem, type OpenInvitation } from './people.ts';
import { completeSignIn } from './sessions.ts';
import { totpUri } from './totp.ts';
import { openTotpSecret } from './totp-secrets.ts';

const Params = Type.Object({ token: Type.String({ maxLength: 64 }) });
const Form = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 128 })),
  password: Type.Optional(Type.String({ maxLength: 4096 })),
  code: Type.Optional(Type.String({ maxLength: 16 })),
});

const NO_INVITATION = new ProblemError({ code: 'invitation_not_found', detail: 'This invitation is not valid: it was used already, it expired (after 72 hours), or the link is incomplete. Ask for a new one.' });

export async function invitationRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;
  const now = () => deps.clock.now();

  async function invitation(token: string): Promise<OpenInvitation> {
    const found = await openInvitation(deps.db, token, now());
    if (!found) throw NO_INVITATION;
    return found;
  }

  const passwordPage = (request: FastifyRequest, reply: FastifyReply, token: string, found: OpenInvitation, status: number, message?: string) =>
    con.render(request, reply, 'invitation', { title: 'Accept your invitation', action: con.url(`/invitations/${token}`), email: found.email, role: found.role, message }, status);

  const enrolPage = (request: FastifyRequest, reply: FastifyReply, token: string, found: OpenInvitation, secret: string, status: number, message?: string) =>
    con.render(request, reply, 'enrol', { title: 'Set up your authenticator', action: con.url(`/invitations/${token}/code`), secret, uri: totpUri(secret, found.email), message }, status);

  app.get('/console/invitations/:token', { config: { consoleAccess: 'public' }, schema: { params: Params } }, async (request, reply) => {
    const found = await invitation(request.params.token);
    return passwordPage(request, reply, request.params.token, found, 200);
  });

  app.post('/console/invitations/:token', { config: { consoleAccess: 'public' }, schema: { params: Params, body: Form } }, async (request, reply) => {
    const { token } = request.params;
    const found = await invitation(token);
    const password = request.body.password ?? '';
    const problem = passwordProblem(password);
    if (problem) return passwordPage(request, reply, token, found, 400, problem);
    const secret = await choosePassword(deps.db, found, password, con.secrets);
    return enrolPage(request, reply, token, found, secret, 200);
  });

  app.post('/console/invitations/:token/code', { config: { consoleAccess: 'public' }, schema: { params: Params, body: Form } }, async (request, reply) => {
    const { token } = request.params;
    const found = await invitation(token);
    if (!found.pendingTotpSecret) return reply.redirect(con.url(`/invitations/${token}`), 303);
    // Counted per invitation; a right code uses the invitation up, so there is nothing to forget then.
    await con.penalties.attempt(request.ip, { step: 'code', subject: found.id });
    const created = await completeInvitation(deps.db, found, request.body.code ?? '', con.secrets, now());
    if (!created) return enrolPage(request, reply, token, found, openTotpSecret(con.secrets, found.pendingTotpSecret, found.email), 400, 'That code is not right. Check the time on your device and type the code the app shows now.');
    con.setSessionCookie(reply, await completeSignIn(deps.db, created.userId, now()));
    await auditConsole(deps.db, { event: 'console_invitation_accepted', outcome: 'success', organisationId: found.organisationId, actor: { kind: 'console_user', id: created.userId, email: found.email }, address: request.ip, context: { role: found.role } }, now());
    return reply.redirect(con.root, 303);
  });
}
