// Signing in (email and password, then a TOTP code), confirming one's identity again before a secret
// is shown (step-up), and signing out. Failures count toward the penalty of §2, per account and address
// (routes.ts `attempt`), and are audited in the account's organisation.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import type { Console } from './routes.ts';
import { actorOf, auditConsole } from './audit.ts';
import { checkPassword, consoleUserById } from './people.ts';
import { completeSignIn, endSession, recordStepUp, startSignIn } from './sessions.ts';
import { acceptUserCode } from './totp.ts';
import { openTotpSecret } from './totp-secrets.ts';

const WRONG_CREDENTIALS = 'The email or password is not correct.';
const WRONG_CODE = 'That code is not right, or it was used already. Wait for the next code and try again.';

const Form = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 128 })),
  email: Type.Optional(Type.String({ maxLength: 320 })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  code: Type.Optional(Type.String({ maxLength: 16 })),
  next: Type.Optional(Type.String({ maxLength: 2048 })),
});

/** Only a console page may be the destination after a step-up: never another site. */
export function safeNext(root: string, next: string | undefined): string {
  return next && next.startsWith(`${root}/`) && !next.startsWith(`${root}//`) && !/[\\\s]/.test(next) ? next : root;
}

export async function signInRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;
  const now = () => deps.clock.now();

  const codePage = (request: FastifyRequest, reply: FastifyReply, status: number, message?: string) =>
    con.render(request, reply, 'code', { title: 'Enter your code', heading: 'Enter your code', action: con.url('/login/code'), button: 'Sign in', message }, status);

  const stepUpPage = (request: FastifyRequest, reply: FastifyReply, next: string, status: number, message?: string) =>
    con.render(request, reply, 'code', { title: 'Confirm it is you', heading: 'Confirm it is you', action: con.url('/step-up'), askPassword: true, next, button: 'Confirm', message }, status);

  app.get('/console/login', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    if (request.consoleSession?.stage === 'active') return reply.redirect(con.root, 303);
    return con.render(request, reply, 'login', { title: 'Sign in' });
  });

  app.post('/console/login', { config: { consoleAccess: 'public' }, schema: { body: Form } }, async (request, reply) => {
    const { email = '', password = '' } = request.body;
    const target = { step: 'password', email } as const;
    await con.penalties.attempt(request.ip, target);
    const { user, matches } = await checkPassword(deps.db, email, password);
    if (!user || !matches) {
      // A known account's failure is its organisation's business (an attack on its people); an unknown email's belongs to no one.
      await con.penalties.failed(request.ip, target, { event: 'console_sign_in', organisationId: user?.organisation_id ?? null, actor: user ? actorOf(user) : null, detail: 'bad_password' });
      return con.render(request, reply, 'login', { title: 'Sign in', email, message: WRONG_CREDENTIALS }, 401);
    }
    con.setSessionCookie(reply, await startSignIn(deps.db, user.id, now()));
    return reply.redirect(con.url('/login/code'), 303);
  });

  app.get('/console/login/code', { config: { consoleAccess: 'signing-in' } }, async (request, reply) => codePage(request, reply, 200));

  app.post('/console/login/code', { config: { consoleAccess: 'signing-in' }, schema: { body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    const target = { step: 'code', subject: session.user.id } as const;
    await con.penalties.attempt(request.ip, target);
    const user = await consoleUserById(deps.db, session.user.id);
    const accepted = user !== undefined && (await acceptUserCode(deps.db, user, openTotpSecret(con.secrets, user.totp_secret, user.email), request.body.code ?? '', now()));
    const audit = { event: 'console_sign_in', organisationId: session.user.organisationId, actor: actorOf(session.user), address: request.ip } as const;
    if (!accepted) {
      await con.penalties.failed(request.ip, target, { ...audit, detail: 'bad_code' });
      return codePage(request, reply, 401, WRONG_CODE);
    }
    await con.penalties.succeeded(request.ip, session.user);
    con.setSessionCookie(reply, await completeSignIn(deps.db, session.user.id, now(), session.tokenHash));
    await auditConsole(deps.db, { ...audit, outcome: 'success' }, now());
    return reply.redirect(con.root, 303);
  });

  app.get('/console/step-up', { config: { consoleAccess: 'member' }, schema: { querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2048 })) }) } }, async (request, reply) =>
    stepUpPage(request, reply, safeNext(con.root, request.query.next), 200));

  app.post('/console/step-up', { config: { consoleAccess: 'member' }, schema: { body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    const next = safeNext(con.root, request.body.next);
    const target = { step: 'code', subject: session.user.id } as const;
    await con.penalties.attempt(request.ip, target);
    const { user, matches } = await checkPassword(deps.db, session.user.email, request.body.password ?? '');
    const accepted = matches && user?.id === session.user.id && (await acceptUserCode(deps.db, user, openTotpSecret(con.secrets, user.totp_secret, user.email), request.body.code ?? '', now()));
    const audit = { event: 'console_step_up', organisationId: session.user.organisationId, actor: actorOf(session.user), address: request.ip } as const;
    if (!accepted) {
      await con.penalties.failed(request.ip, target, audit);
      return stepUpPage(request, reply, next, 401, 'The password or code is not right.');
    }
    await con.penalties.succeeded(request.ip, session.user);
    await recordStepUp(deps.db, session.tokenHash, now());
    await auditConsole(deps.db, { ...audit, outcome: 'success' }, now());
    return reply.redirect(next, 303);
  });

  app.post('/console/sign-out', { config: { consoleAccess: 'member' }, schema: { body: Form } }, async (request, reply) => {
    const session = request.consoleSession!;
    await endSession(deps.db, session.tokenHash);
    con.setSessionCookie(reply, undefined);
    await auditConsole(deps.db, { event: 'console_sign_out', outcome: 'success', organisationId: session.user.organisationId, actor: actorOf(session.user), address: request.ip }, now());
    return reply.redirect(con.url('/login'), 303);
  });
}
