// The token endpoint (contract: identity and access, "Token endpoint"): JSON or form-encoded body, client
// authentication by body or HTTP Basic, audience in body or query, and the three grant types.
import { Type, type Static } from 'typebox';
import type { App } from '../platform/http.ts';
import { OAuthError, oauth } from '../platform/errors.ts';
import { recordAudit } from './audit.ts';
import { authenticateClient, enforceRateLimit } from './client-auth.ts';
import { scopeAcceptable, type OAuthClient } from './clients.ts';
import { redeemAuthorizationCode } from './codes.ts';
import { newGrantId, revokeGrantNow } from './grants.ts';
import { ClientCache } from './client-cache.ts';
import { ClientChanged, despiteClientChanges } from './client-changes.ts';
import { IssueRecords } from './issue-records.ts';
import { grantRefusal, issueIdToken, issueRefreshToken, tokenResponse } from './issuance.ts';
import type { IssuerDeps } from './issuer.ts';
import type { IdentityDeps } from './identity-deps.ts';
import { requireOAuthBody } from './oauth-body.ts';
import { NO_STORE, TokenResponse, notStored, oauthErrorResponses } from './oauth-schemas.ts';
import { RenewalRefused, renewTokens, verifyPresentedRefreshToken } from './renewal.ts';
import type { Throttle } from './throttle.ts';
import { DEFAULT_AUDIENCE, type TokenSubject } from './tokens.ts';

const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ description: 'authorization_code, client_credentials or refresh_token' })),
    code: Type.Optional(Type.String()),
    redirect_uri: Type.Optional(Type.String()),
    code_verifier: Type.Optional(Type.String({ description: 'PKCE verifier, when the authorization request sent a code_challenge' })),
    refresh_token: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    audience: Type.Optional(Type.String({ description: 'Default service-api; may instead be a query parameter' })),
    scope: Type.Optional(Type.String({ description: '"all" (the only scope) when sent' })),
  },
  // RFC 6749 §3.2: unknown request parameters are ignored.
  { additionalProperties: true },
);
type TokenRequest = Static<typeof TokenRequest>;

const TokenQuery = Type.Object({ audience: Type.Optional(Type.String()) }, { additionalProperties: false });

const GRANT_TYPES = ['authorization_code', 'client_credentials', 'refresh_token'] as const;
type GrantType = (typeof GRANT_TYPES)[number];

interface Exchange {
  client: OAuthClient;
  body: TokenRequest;
  /** The audience asked for, already checked against the client's; undefined when not sent. */
  audience: string | undefined;
  address: string;
}

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw oauth.invalidRequest(`${name} is required.`);
  return value;
}

// The checks of a token request, in the order the handler runs them (each throws the OAuth error
// that stops the request): supportedGrantType, then client authentication and the client's budget
// (client-auth.ts), grantEnabledForClient, requestedAudience, scopeIsAll; then the grant's own steps.

function supportedGrantType(grantType: string | undefined): GrantType {
  const named = required(grantType, 'grant_type');
  if (!(GRANT_TYPES as readonly string[]).includes(named)) throw oauth.unsupportedGrantType(`grant_type "${named}" is not supported.`);
  return named as GrantType;
}

/** authorization_code is every client's; the other grants only where the operator enabled them. */
function grantEnabledForClient(client: OAuthClient, grantType: GrantType): void {
  if (grantType !== 'authorization_code' && !client.grants.includes(grantType)) {
    throw oauth.unauthorizedClient(`The ${grantType} grant is not enabled for this client; ask support to enable it.`);
  }
}

/** The audience asked for (body or query, not two different ones), one of the client's; undefined when not sent. */
function requestedAudience(client: OAuthClient, inBody: string | undefined, inQuery: string | undefined): string | undefined {
  if (inBody !== undefined && inQuery !== undefined && inBody !== inQuery) throw oauth.invalidRequest('audience differs between the body and the query string.');
  const audience = inBody ?? inQuery;
  if (audience !== undefined && !client.audiences.includes(audience)) throw oauth.invalidTarget(`The audience "${audience}" is not allowed for this client.`);
  return audience;
}

function scopeIsAll(scope: string | undefined): void {
  if (scope !== undefined && !scopeAcceptable(scope)) throw new OAuthError(400, 'invalid_scope', 'scope must be "all".');
}

async function authorizationCodeGrant(deps: IssuerDeps, { client, body, audience, address }: Exchange): Promise<TokenResponse> {
  const now = deps.clock.now();
  const redemption = await redeemAuthorizationCode(deps.db, {
    code: required(body.code, 'code'),
    clientId: client.id,
    redirectUri: required(body.redirect_uri, 'redirect_uri'),
    codeVerifier: body.code_verifier,
    audience: audience ?? DEFAULT_AUDIENCE,
    chainMaxSeconds: deps.config.refreshChainMaxSeconds,
  }, now);
  if (redemption.status === 'replayed') {
    for (const id of redemption.revokedGrantIds) deps.revocations.remember(id);
    await recordAudit(deps.db, { event: 'code_replay', outcome: 'revoked', clientId: client.id, userId: redemption.userId, address, detail: `revoked_grants=${redemption.revokedGrantIds.length}` });
    throw oauth.invalidGrant('The authorization code has already been used; every token issued from it has been revoked.');
  }
  if (redemption.status === 'refused') {
    await recordAudit(deps.db, { event: 'token_issued', outcome: 'failure', clientId: client.id, address, detail: 'authorization_code_refused' });
    throw oauth.invalidGrant(redemption.reason);
  }
  const { grant } = redemption;
  const refusal = grant ? grantRefusal(grant) : 'The grant is unknown.';
  if (!grant || refusal) {
    await revokeGrantNow(deps.db, deps.revocations, redemption.grantId, 'disabled_during_exchange');
    throw oauth.invalidGrant(refusal ?? 'The grant is unknown.');
  }
  const { token } = await issueIdToken(deps.keys, deps.config, grant, now, { nonce: redemption.nonce });
  const refreshToken = await issueRefreshToken(deps.db, deps.keys, deps.config, grant, null, now);
  await recordAudit(deps.db, { event: 'token_issued', outcome: 'success', clientId: client.id, userId: grant.userId, address, detail: 'authorization_code' });
  return tokenResponse(token, deps.config, refreshToken);
}

/** What the grants need: the issuer's dependencies and the records of client_credentials issues. */
interface TokenDeps extends IssuerDeps {
  issues: IssueRecords;
}

async function clientCredentialsGrant(deps: TokenDeps, { client, audience, address }: Exchange): Promise<TokenResponse> {
  // Everything the token says is known from the authenticated client: no need to read the grant back.
  const subject: TokenSubject = {
    grantId: newGrantId(),
    clientId: client.id,
    userId: null,
    email: null,
    companyId: client.companyId,
    organisationId: client.organisationId,
    authTime: deps.clock.now(),
    audience: audience ?? DEFAULT_AUDIENCE,
  };
  // The grant and its audit entry are stored while the token is signed.
  const stored = deps.issues.store({
    grantId: subject.grantId,
    client,
    at: subject.authTime,
    chainExpiresAt: subject.authTime + deps.config.refreshChainMaxSeconds * 1000,
    audience: subject.audience,
    address,
  });
  const [{ token }, recorded] = await Promise.all([issueIdToken(deps.keys, deps.config, subject, subject.authTime), stored]);
  if (!recorded) throw new ClientChanged(client.id);
  // RFC 6749 §4.4.3: no refresh token; the client can authenticate again at any time.
  return tokenResponse(token, deps.config);
}

async function refreshTokenGrant(deps: IssuerDeps, { client, body, audience, address }: Exchange): Promise<TokenResponse> {
  const presented = required(body.refresh_token, 'refresh_token');
  try {
    const claims = await verifyPresentedRefreshToken(deps, presented);
    return await renewTokens(deps, claims, { clientId: client.id, address, ...(audience ? { audience } : {}) });
  } catch (error) {
    if (error instanceof RenewalRefused) throw oauth.invalidGrant(error.message);
    throw error;
  }
}

const GRANTS: Record<GrantType, (deps: TokenDeps, exchange: Exchange) => Promise<TokenResponse>> = {
  authorization_code: authorizationCodeGrant,
  client_credentials: clientCredentialsGrant,
  refresh_token: refreshTokenGrant,
};

export async function tokenRoutes(app: App, { deps: issuer, throttle }: { deps: IssuerDeps & Pick<IdentityDeps, 'metrics'>; throttle: Throttle }): Promise<void> {
  const { db, clock, keys, revocations, config, metrics } = issuer;
  const clients = new ClientCache(db);
  const deps: TokenDeps = { db, clock, keys, revocations, config, issues: new IssueRecords(db) };
  app.post(
    '/api/v1/iam/oauth/token',
    {
      config: { errorFormat: 'oauth' },
      preValidation: requireOAuthBody,
      schema: {
        tags: ['identity'],
        operationId: 'oauthToken',
        summary: 'Exchange an authorization code (or client credentials, or a refresh token) for tokens',
        description:
          'Body as JSON or application/x-www-form-urlencoded. Client authentication by client_id + client_secret in the body or HTTP Basic. ' +
          'client_credentials and refresh_token work only where the operator enabled them for the client.',
        // Client secret in the body (no scheme) or HTTP Basic.
        security: [{ clientSecretBasic: [] }, {}],
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        querystring: TokenQuery,
        body: TokenRequest,
        response: { 200: notStored(TokenResponse), ...oauthErrorResponses(400, 401, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const grantType = supportedGrantType(body.grant_type);
      // client_credentials is checked against kept copies of the clients: its grant's insert re-checks the row.
      const kept = grantType === 'client_credentials' ? clients : undefined;
      const exchange = async (source: ClientCache | undefined, counted: boolean): Promise<TokenResponse> => {
        const client = await authenticateClient(db, throttle, request, body, clock.now(), source);
        if (!counted) await enforceRateLimit(throttle, 'token', client.id);
        let audience: string | undefined;
        try {
          grantEnabledForClient(client, grantType);
          audience = requestedAudience(client, body.audience, request.query.audience);
          scopeIsAll(body.scope);
        } catch (error) {
          // A kept copy refuses only what a fresh read refuses too.
          throw source ? new ClientChanged(client.id) : error;
        }
        return GRANTS[grantType](deps, { client, body, audience, address: request.ip });
      };
      // A stale kept copy: the same request again on a fresh read (counted once, on the first try).
      const response = await despiteClientChanges((fresh) => exchange(fresh ? undefined : kept, fresh), (clientId) => clients.forget(clientId));
      metrics.tokenIssued(grantType);
      return reply.headers(NO_STORE).send(response);
    },
  );
}
