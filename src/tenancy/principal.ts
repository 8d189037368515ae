// Who calls the secured API, and for which tenant: set on the request by the authentication hook of
// the secured subtree (src/app/secured-api.ts), read by every handler inside it.

export interface Principal {
  clientId: string;
  userId: string | null;
  companyId: string;
  organisationId: string;
  grantId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}
