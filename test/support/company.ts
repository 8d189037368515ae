// One company ready for API calls, as most API suites start: a tenant (organisation, company, API
// Client, API User), optionally its company data loaded through the operator's import, and the API
// User's tokens minted without a browser login.
import { after, before } from 'node:test';
import type { AppContext } from '../../src/app/context.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './server.ts';
import { mintTokens, provisionTenant, type Tenant, type TenantOptions } from './tenants.ts';

export interface CompanyOptions extends TenantOptions {
  /** An import document (contract: operator side: departments, users …) loaded into the company. */
  data?: unknown;
}

export interface SignedInCompany {
  tenant: Tenant;
  /** The API User's ID token, for `Authorization: Bearer`. */
  token: string;
  refreshToken: string;
}

export async function signedInCompany(ctx: AppContext, options: CompanyOptions = {}): Promise<SignedInCompany> {
  const { data, ...tenantOptions } = options;
  const tenant = await provisionTenant(ctx, tenantOptions);
  if (data) await importCompanyData(ctx.db, tenant.companyId, data);
  const tokens = await mintTokens(ctx, tenant);
  return { tenant, token: tokens.id_token, refreshToken: tokens.refresh_token ?? '' };
}

export interface CompanyServer extends SignedInCompany {
  server: TestServer;
}

export type CompanyServerOptions = CompanyOptions & { env?: Record<string, string> } & Omit<TestServerOptions, 'logStream'>;

/** A fresh server (configured by `env`) with one signed-in company; the caller closes `server`. */
export async function startCompanyServer(options: CompanyServerOptions = {}): Promise<CompanyServer> {
  const { env, clock, inProcess, cachedAnswerLane, ...companyOptions } = options;
  const server = await startTestServer(env, { clock, inProcess, cachedAnswerLane });
  try {
    return { server, ...(await signedInCompany(server.ctx, companyOptions)) };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * `startCompanyServer` as the calling file's (or suite's) fixture: started before its tests, closed
 * after them. Read the fields inside tests. (Hooks at the top of a file run at once, side by side:
 * set-up that needs the server belongs in the tests or in a `before` of its own around
 * `startCompanyServer`.)
 */
export function useCompanyServer(options: CompanyServerOptions = {}): CompanyServer {
  const fixture = {} as CompanyServer;
  before(async () => {
    Object.assign(fixture, await startCompanyServer(options));
  });
  after(() => fixture.server?.close());
  return fixture;
}
