// The operator API of the console (CONTRACT §5, §6): `wfs invite-console-user` over HTTP, behind
// ADMIN_TOKEN, answering the same JSON.
import { Type } from 'typebox';
import type { App } from '../platform/http.ts';
import { Id, TypedEmail } from '../platform/schemas.ts';
import { requireOperator } from '../admin/guard.ts';
import { operatorSchema, type AdminRouteDeps } from '../admin/routes.ts';
import { inviteAsOperator } from './operator-invitation.ts';
import { CONSOLE_ROLES } from './tables.ts';

const NewInvitation = Type.Object(
  {
    organisationId: Id('Organisation whose console the person joins'),
    email: TypedEmail('The person\'s email address: their console sign-in'),
    role: Type.Optional(Type.Union(CONSOLE_ROLES.map((role) => Type.Literal(role)), { default: 'admin', description: 'admin (every action) or viewer (reads only); admin when left out' })),
  },
  { additionalProperties: false },
);

const CreatedInvitation = Type.Object({
  inviteUrl: Type.String({ format: 'uri', description: 'Single-use link to accept the invitation (set a password, enrol TOTP); a credential, shown once' }),
  expiresAt: Type.String({ format: 'date-time', description: '72 hours after the invitation' }),
});

export async function consoleAdminRoutes(app: App, { deps }: { deps: AdminRouteDeps }): Promise<void> {
  app.addHook('onRequest', async (request) => requireOperator(deps.config.adminToken, request));

  app.post('/api/v1/admin/console-invitations', { schema: { body: NewInvitation, ...operatorSchema('adminInviteConsoleUser', 'Invite a person to an organisation\'s customer console (single-use link, valid 72 hours)', 201, CreatedInvitation, 400, 409) } },
    async (request, reply) => {
      const { organisationId, email, role = 'admin' } = request.body;
      const { inviteUrl, expiresAt } = await inviteAsOperator(deps.db, { organisationId, email, role }, deps.config.authUrl);
      return reply.code(201).send({ inviteUrl, expiresAt });
    });
}
