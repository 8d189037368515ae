// An organisation that signs its API Users in through its own provider: a tenant whose client has the
// `sso` grant, the provider registered for a domain, and an API User (and the IdP's person) in it.
import { addSsoProvider, setSsoEnforced } from '../../src/sso/providers.ts';
import { loadSecretBox } from '../../src/sso/secrets-key.ts';
import { createApiUser, setGrantEnabled } from '../../src/iam/provisioning.ts';
import { startTestServer, type TestServer, type TestServerOptions } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { startIdentityProvider, type IdentityProvider } from './identity-provider.ts';

export interface SsoTenant {
  tenant: Tenant;
  providerId: string;
  domain: string;
  /** The API User of the domain, and the IdP account (its sub) of the same person. */
  user: { userId: string; email: string; secret: string; sub: string };
}

let counter = 0;

export async function ssoTenant(server: TestServer, idp: IdentityProvider, options: { enforce?: boolean; grants?: string[]; redirectUris?: string[] } = {}): Promise<SsoTenant> {
  counter += 1;
  const domain = `sso-${counter}-${idp.issuer.split(':').at(-1) ?? ''}.example`;
  const tenant = await provisionTenant(server.ctx, { name: `SSO ${counter}`, redirectUris: options.redirectUris ?? ['https://app.example.com/callback'] });
  for (const grant of options.grants ?? ['sso', 'refresh_token']) await setGrantEnabled(server.ctx.db, tenant.clientId, grant, true);
  const box = await loadSecretBox(server.ctx.db, server.config, () => {});
  const { providerId } = await addSsoProvider(server.ctx.db, { box, allowInsecure: true }, { organisationId: tenant.organisationId, issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains: [domain] });
  if (options.enforce) await setSsoEnforced(server.ctx.db, tenant.organisationId, true);
  const created = await createApiUser(server.ctx.db, { clientId: tenant.clientId, email: `ana@${domain}` });
  const sub = `ana-${counter}`;
  idp.people.set(sub, { sub, email: created.email, email_verified: true });
  return { tenant, providerId, domain, user: { ...created, sub } };
}

export interface SsoServer {
  server: TestServer;
  idp: IdentityProvider;
  close(): Promise<void>;
}

/** The service (SSO_ALLOW_INSECURE, for a provider on 127.0.0.1) and a customer's provider that knows its callback. */
export async function startSsoServer(options: Omit<TestServerOptions, 'logStream'> = {}): Promise<SsoServer> {
  const server = await startTestServer({ SSO_ALLOW_INSECURE: '1' }, options);
  const idp = await startIdentityProvider(`${server.config.authUrl}/oauth/sso/callback`);
  return { server, idp, close: async () => void (await Promise.all([server.close(), idp.close()])) };
}
