// OpenID Provider metadata and the JSON Web Key Set. Everything a strict OpenID client needs comes
// from this document alone.
import { Type, type TSchema } from 'typebox';
import type { App } from '../platform/http.ts';
import type { IdentityDeps } from './identity-deps.ts';
import { SIGNING_ALG } from './keys.ts';

const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) });

export function discoveryDocument(config: Pick<IdentityDeps['config'], 'issuer' | 'authUrl' | 'baseUrl'>): Record<string, unknown> {
  const { issuer, authUrl } = config;
  return {
    issuer,
    authorization_endpoint: `${authUrl}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['all', 'openid'],
    claims_supported: ['iss', 'sub', 'aud', 'azp', 'exp', 'iat', 'auth_time', 'nonce', 'jti', 'sid', 'scope', 'company_id', 'org_id', 'email', 'amr', 'idp'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${config.baseUrl}/docs`,
  };
}

// Public metadata, like any OpenID provider's: a browser app on another origin (a single-page client,
// the customer's own tools) may read it. No credentials are involved, so `*` suffices. The login page
// and the token endpoints send no CORS headers at all.
const METADATA_CORS = { 'Access-Control-Allow-Origin': '*' };
const METADATA_PREFLIGHT = { ...METADATA_CORS, 'Access-Control-Allow-Methods': 'GET', 'Access-Control-Allow-Headers': '*', 'Access-Control-Max-Age': '86400' };
const CORS_NOTE = ' Readable from any origin (CORS `Access-Control-Allow-Origin: *`, preflight answered).';

const DISCOVERY_CACHING = 'public, max-age=300';
// Short cache: a key published ahead of rotation must reach clients before it signs.
const JWKS_CACHING = 'public, max-age=60';

/** A metadata document's success as the OpenAPI document declares it: with the headers it is sent with. */
function metadataAnswer<T extends TSchema>(schema: T, caching: string): T {
  return {
    ...schema,
    headers: {
      'Cache-Control': { type: 'string', const: caching, description: `\`${caching}\`: any cache may keep it that long.` },
      'Access-Control-Allow-Origin': { type: 'string', const: '*', description: '`*`: readable from any origin (public metadata, no credentials).' },
    },
  };
}

/** The preflight of a public metadata document: GET from any origin, no credentials. */
function answerPreflight(app: App, path: string): void {
  app.options(path, { schema: { hide: true } }, async (_request, reply) => reply.code(204).headers(METADATA_PREFLIGHT).send());
}

export async function discoveryRoutes(app: App, { deps }: { deps: Pick<IdentityDeps, 'keys' | 'config'> }): Promise<void> {
  app.get(
    '/api/v1/iam/.well-known/openid-configuration',
    { schema: { tags: ['identity'], operationId: 'openidConfiguration', summary: 'OpenID Provider metadata', description: 'Everything a strict OpenID client needs (endpoints, ES256, PKCE S256, `iss` in the authorization response). Cacheable for 5 minutes.' + CORS_NOTE, response: { 200: metadataAnswer(Type.Record(Type.String(), Type.Unknown()), DISCOVERY_CACHING) } } },
    async (_request, reply) => {
      reply.headers({ ...METADATA_CORS, 'Cache-Control': DISCOVERY_CACHING });
      return discoveryDocument(deps.config);
    },
  );

  app.get(
    '/api/v1/iam/.well-known/jwks.json',
    { schema: { tags: ['identity'], operationId: 'jwks', summary: 'JSON Web Key Set (includes keys about to sign and retired keys still verifying)', description: 'A new key appears here on every instance as soon as it is rotated, and signs from its activation (by default 120 s later; an operator may choose sooner, down to at once, e.g. after a key leak); a retired key stays until every token it signed has expired, and a withdrawn one (a leak: `wfs withdraw-signing-key`) leaves at once. Cacheable for 60 s; refetch on an unknown kid.' + CORS_NOTE, response: { 200: metadataAnswer(Jwks, JWKS_CACHING) } } },
    async (_request, reply) => {
      reply.headers({ ...METADATA_CORS, 'Cache-Control': JWKS_CACHING });
      return { keys: await deps.keys.publishedKeys() };
    },
  );
  answerPreflight(app, '/api/v1/iam/.well-known/openid-configuration');
  answerPreflight(app, '/api/v1/iam/.well-known/jwks.json');
}
