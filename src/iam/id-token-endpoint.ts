// idToken (contract: identity and access): `Authorization: Bearer <refresh_token>` → a new ID token, and a renewed
// refresh token when the presented one is past half its life. POST as documented; GET also accepted.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import type { IdentityDeps } from './identity-deps.ts';
import type { IssuerDeps } from './issuer.ts';
import { oauth } from '../platform/errors.ts';
import { bearerToken } from './bearer-authentication.ts';
import { enforceRateLimit } from './client-auth.ts';
import { NO_STORE, TokenResponse, notStored, oauthErrorResponses } from './oauth-schemas.ts';
import { NoQuery } from '../platform/schemas.ts';
import { RenewalRefused, renewTokens, verifyPresentedRefreshToken } from './renewal.ts';
import type { Throttle } from './throttle.ts';

export async function idTokenRoutes(app: App, { deps, throttle }: { deps: IssuerDeps & Pick<IdentityDeps, 'metrics'>; throttle: Throttle }): Promise<void> {
  async function renew(request: FastifyRequest, reply: FastifyReply): Promise<TokenResponse> {
    const token = bearerToken(request);
    if (token === undefined) throw oauth.missingToken();
    if (token === '') throw oauth.invalidToken('The Bearer token is empty or malformed.');
    try {
      const claims = await verifyPresentedRefreshToken(deps, token);
      // Counted only once the signature proves which client this is: nobody spends another's budget.
      await enforceRateLimit(throttle, 'idToken', claims.azp);
      const response = await renewTokens(deps, claims, { address: request.ip });
      deps.metrics.tokenIssued('id_token');
      reply.headers(NO_STORE);
      return response;
    } catch (error) {
      if (error instanceof RenewalRefused) throw oauth.invalidToken(error.message);
      throw error;
    }
  }

  const schema = (operationId: string) => ({
    tags: ['identity'],
    operationId,
    summary: 'Exchange a refresh token (Authorization: Bearer <refresh_token>) for a new ID token',
    description:
      'Returns a new ID token each time; `refresh_token` only when renewed (less than half its lifetime left). ' +
      'A superseded refresh token works for REFRESH_GRACE_SECONDS more, for clients that retry: it gets a new ID token and the same successor again ' +
      '(same `jti`, `iat` and `exp`; the text may differ, as ES256 signatures are randomised, but it is the same token: the chain never forks). ' +
      'Used after the grace period, the whole login is revoked.',
    security: [{ refreshToken: [] }],
    querystring: NoQuery,
    response: { 200: notStored(TokenResponse), ...oauthErrorResponses(401, 429, 503) },
  });
  app.post('/api/v1/iam/idToken', { config: { errorFormat: 'oauth' }, schema: schema('idToken') }, renew);
  app.get('/api/v1/iam/idToken', { config: { errorFormat: 'oauth' }, schema: schema('idTokenGet') }, renew);
}
