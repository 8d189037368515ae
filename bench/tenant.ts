// The benchmark's customer: one organisation, company, API Client (client_credentials and
// refresh_token enabled) and API User, provisioned through the operator's domain functions, with an
// ID token and a refresh token minted for it (the login flow itself is not what is measured).
import { loadConfig } from '../src/platform/config.ts';
import { closeContext, createContext } from '../src/app/bootstrap.ts';
import type { AppContext } from '../src/app/context.ts';
import { setGrantEnabled } from '../src/iam/provisioning.ts';
import { mintTokens, provisionTenant, type Tenant } from '../test/support/tenants.ts';

/** The public address every instance shares, as behind a load balancer; the token issuer derives from it. */
export const BENCH_BASE_URL = 'http://localhost:8080';
export const BENCH_TIMEZONE = 'Europe/Amsterdam';

export interface BenchTenant extends Tenant {
  idToken: string;
  refreshToken: string;
}

/** A context on the benchmark's database for provisioning and loading data (no background polling). */
export async function openBenchContext(databaseUrl: string): Promise<AppContext> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, BASE_URL: BENCH_BASE_URL, LOG_LEVEL: 'warn' });
  return createContext(config, { poll: false });
}

export async function provisionBenchTenant(ctx: AppContext): Promise<BenchTenant> {
  const tenant = await provisionTenant(ctx, { name: 'Bench', timezone: BENCH_TIMEZONE });
  await setGrantEnabled(ctx.db, tenant.clientId, 'client_credentials', true);
  await setGrantEnabled(ctx.db, tenant.clientId, 'refresh_token', true);
  const tokens = await mintTokens(ctx, tenant);
  if (!tokens.refresh_token) throw new Error('mintTokens returned no refresh token');
  return { ...tenant, idToken: tokens.id_token, refreshToken: tokens.refresh_token };
}

export { closeContext };
