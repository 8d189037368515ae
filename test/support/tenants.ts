// Provisions organisations, companies, clients and users through the same domain functions the
// operator CLI uses, and mints tokens directly for tests that are not about the login flow.
import type { AppContext } from '../../src/app/context.ts';
import { createApiClient, createApiUser, createCompany, createOrganisation } from '../../src/iam/provisioning.ts';
import { createGrant, loadGrantContext } from '../../src/iam/grants.ts';
import { issueIdToken, issueRefreshToken, tokenResponse, type GrantContext } from '../../src/iam/issuance.ts';
import type { TokenResponse } from '../../src/iam/oauth-schemas.ts';
import { findClient, verifiedClient } from '../../src/iam/clients.ts';
import { sha256 } from '../../src/platform/ids.ts';
import type { Db } from '../../src/platform/db/database.ts';

export interface Tenant {
  organisationId: string;
  companyId: string;
  clientId: string;
  clientSecret: string;
  userId: string;
  email: string;
  secret: string;
  redirectUri: string;
}

export interface TenantOptions {
  organisationId?: string;
  timezone?: string;
  redirectUris?: string[];
  name?: string;
}

export async function provisionTenant(ctx: AppContext, options: TenantOptions = {}): Promise<Tenant> {
  const organisationId = options.organisationId ?? (await createOrganisation(ctx.db, { name: `${options.name ?? 'Test'} Org` })).organisationId;
  const { companyId } = await createCompany(ctx.db, { organisationId, name: options.name ?? 'Test Company', timezone: options.timezone ?? 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' });
  const redirectUris = options.redirectUris ?? ['https://app.example.com/callback'];
  const { clientId, clientSecret } = await createApiClient(ctx.db, { companyId, name: 'Test client', redirectUris });
  const user = await createApiUser(ctx.db, { clientId, email: `user-${clientId.slice(-8).toLowerCase()}@example.com` });
  return { organisationId, companyId, clientId, clientSecret, userId: user.userId, email: user.email, secret: user.secret, redirectUri: redirectUris[0] ?? '' };
}

/** Tokens for the tenant's API User without a browser login: a grant, an ID token and a refresh token. */
export async function mintTokens(ctx: AppContext, tenant: Tenant, audience = 'service-api'): Promise<TokenResponse> {
  const grantId = await createGrant(ctx.db, { clientId: tenant.clientId, userId: tenant.userId, kind: 'authorization_code', authTime: Date.now(), chainMaxSeconds: ctx.config.refreshChainMaxSeconds });
  const grant = (await loadGrantContext(ctx.db, grantId)) as GrantContext;
  const { token } = await issueIdToken(ctx.keys, ctx.config, grant, ctx.clock.now(), { audience });
  const refresh = await issueRefreshToken(ctx.db, ctx.keys, ctx.config, grant, null, ctx.clock.now());
  return tokenResponse(token, ctx.config, refresh);
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** Whether the client takes `secret` at `now`, decided as the token endpoint decides it (findClient, then verifiedClient on its digest). */
export async function clientTakesSecret(db: Db, clientId: string, secret: string, now = Date.now()): Promise<boolean> {
  return verifiedClient(await findClient(db, clientId), sha256(secret), now) !== undefined;
}
