// The peer authorization server of the token row (issue 16): panva's oidc-provider, certified and
// widely deployed, with its in-memory adapter and one `client_credentials` client, in a process of its
// own like the service. Listens on PORT (its issuer is known before it starts); prints "listening <port>".
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [{
    client_id: process.env.PEER_CLIENT_ID ?? '',
    client_secret: process.env.PEER_CLIENT_SECRET ?? '',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_post',
  }],
  features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
});

const server = createServer(provider.callback());
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
