// Token revocation (RFC 7009). Either token of a grant revokes the whole grant: its refresh tokens
// fail at once, its ID tokens within seconds on every instance. Unknown tokens, and tokens of another
// client, are answered 200 like any other (nothing to learn), and nothing is revoked for them.
import { Type } from 'typebox';
import type { App } from '../platform/http.ts';
import type { IdentityDeps } from './identity-deps.ts';
import { oauth } from '../platform/errors.ts';
import { recordAudit } from './audit.ts';
import { authenticateClient, enforceRateLimit } from './client-auth.ts';
import { loadGrantContext, revokeGrantNow } from './grants.ts';
import { requireOAuthBody } from './oauth-body.ts';
import { NO_STORE, notStored, oauthErrorResponses } from './oauth-schemas.ts';
import type { Throttle } from './throttle.ts';
import { grantOfToken } from './tokens.ts';

const RevocationRequest = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'An ID token or a refresh token' })),
    token_type_hint: Type.Optional(Type.String({ description: 'Ignored: the token says what it is' })),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** Revokes the grant `token` descends from when it belongs to `clientId`; true when it did. */
type RevocationDeps = Pick<IdentityDeps, 'db' | 'clock' | 'keys' | 'revocations' | 'config'>;

export async function revokePresentedToken(deps: RevocationDeps, clientId: string, token: string): Promise<{ revoked: boolean; userId: string | null }> {
  const named = await grantOfToken(deps.keys, token, deps.config.issuer);
  if (!named || named.clientId !== clientId) return { revoked: false, userId: null };
  const grant = await loadGrantContext(deps.db, named.grantId);
  if (!grant || grant.clientId !== clientId) return { revoked: false, userId: null };
  await revokeGrantNow(deps.db, deps.revocations, grant.grantId, 'revoked_by_client');
  return { revoked: true, userId: grant.userId };
}

export async function revocationRoutes(app: App, { deps, throttle }: { deps: RevocationDeps; throttle: Throttle }): Promise<void> {
  app.post(
    '/api/v1/iam/oauth/revoke',
    {
      config: { errorFormat: 'oauth' },
      preValidation: requireOAuthBody,
      schema: {
        tags: ['identity'],
        operationId: 'revokeToken',
        summary: 'Revoke the grant of an ID token or refresh token (RFC 7009)',
        description: 'Client-authenticated. Given either token of a login, revokes the whole grant: its refresh tokens fail at once and its ID tokens within 5 seconds on every instance. Unknown tokens, or tokens of another client, answer 200 and revoke nothing.',
        security: [{ clientSecretBasic: [] }, {}],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: RevocationRequest,
        response: { 200: notStored(Type.Object({}, { description: 'Revoked, or nothing to revoke: an empty object' })), ...oauthErrorResponses(400, 401, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const client = await authenticateClient(deps.db, throttle, request, request.body, deps.clock.now());
      await enforceRateLimit(throttle, 'revoke', client.id);
      if (!request.body.token) throw oauth.invalidRequest('token is required.');
      const outcome = await revokePresentedToken(deps, client.id, request.body.token);
      if (outcome.revoked) await recordAudit(deps.db, { event: 'token_revoked', outcome: 'revoked', clientId: client.id, userId: outcome.userId, address: request.ip });
      return reply.code(200).headers(NO_STORE).send({});
    },
  );
}
