// The peer authorization server of the token row (issue 16): panva's oidc-provider, certified and
// widely deployed, with its in-memory adapter and one `client_credentials` client, in a process of its
// own like the service. Listens on PORT (its issuer is known before it starts); prints "listening <port>".
//
// PEER_TOKEN_FORMAT=jwt makes it issue what the service issues: an access token that is a JWT signed
// ES256, for a resource server it knows (RFC 8707 resource indicators; the client asks for none, so
// the default resource applies). Otherwise it issues its default, an opaque token kept in memory.
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const signsJwt = process.env.PEER_TOKEN_FORMAT === 'jwt';
const ACCESS_TOKEN_TTL = 3600;

/** The signing key and the resource server whose access tokens are ES256 JWTs. */
async function jwtSettings(): Promise<{ jwks: unknown; resourceIndicators: unknown }> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'peer-es256', alg: 'ES256', use: 'sig' }] },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:bench:service-api',
      getResourceServerInfo: () => ({ scope: 'all', accessTokenTTL: ACCESS_TOKEN_TTL, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } }),
    },
  };
}

const jwt = signsJwt ? await jwtSettings() : undefined;
const provider = new Provider(`http://127.0.0.1:${port}`, {
  ...(jwt && { jwks: jwt.jwks }),
  clients: [{
    client_id: process.env.PEER_CLIENT_ID ?? '',
    client_secret: process.env.PEER_CLIENT_SECRET ?? '',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_post',
    // Its ID tokens would default to RS256, for which it has no key here.
    ...(jwt && { id_token_signed_response_alg: 'ES256' }),
  }],
  ttl: { ClientCredentials: ACCESS_TOKEN_TTL },
  features: { ...(jwt && { resourceIndicators: jwt.resourceIndicators }), clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
});

const server = createServer(provider.callback());
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
