// A customer's identity provider for the SSO tests: panva's oidc-provider, a certified OpenID
// provider, on 127.0.0.1 (the service runs with SSO_ALLOW_INSECURE=1). Its sign-in page is a plain
// form naming the account; the people it knows are set by the test. A test can also have its token
// endpoint hand out a forged ID token (another issuer, another key, expired) in place of the real one,
// as a compromised or confused provider would, or hold its token endpoint's answer until the test
// lets it go.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { generateKeyPair, exportJWK, SignJWT, decodeJwt, type JWK } from 'jose';
import Provider from 'oidc-provider';
import { freePort } from '../support/server.ts';

export interface Person {
  sub: string;
  email?: string;
  email_verified?: boolean;
  hd?: string;
}

export interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  privateJwk: JWK;
}

/** Rewrites the real ID token's claims and signs them, as a forged token. */
export type IdTokenForgery = (claims: Record<string, unknown>) => Promise<string>;

export interface IdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  key: SigningKey;
  people: Map<string, Person>;
  /** When set, the token endpoint answers with this function's token instead of the real one. */
  forge: IdTokenForgery | undefined;
  /** When set, the token endpoint awaits it before it answers (a test acts while the service waits). */
  hold: (() => Promise<void>) | undefined;
  /** Stops it: every connection is refused afterwards, as when the provider is down. */
  close(): Promise<void>;
}

export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateKey, privateJwk };
}

/** Signs `claims` as an ID token with `key` (the header names its kid). */
export function signIdToken(key: SigningKey, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

export { decodeJwt };

function formBody(request: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(new URLSearchParams(text)));
    request.on('error', reject);
  });
}

const SIGN_IN_PAGE = (uid: string, hint: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Customer IdP</title></head><body>
<h1>Customer identity provider</h1>
<form method="post" action="/interaction/${uid}">
<label for="login">Account</label><input id="login" name="login" value="${hint.replace(/[<>&"]/g, '')}">
<button type="submit">Sign in at the IdP</button>
</form></body></html>`;

/** `redirectUri`: the service's {auth_url}/oauth/sso/callback. */
export async function startIdentityProvider(redirectUri: string, options: { port?: number } = {}): Promise<IdentityProvider> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const key = await newSigningKey(`idp-key-${port}`);
  const people = new Map<string, Person>();
  const clientId = `wfs-${port}`;
  const clientSecret = `secret-of-the-service-at-the-idp-${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post', id_token_signed_response_alg: 'ES256' }],
    jwks: { keys: [key.privateJwk] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['hd'] },
    conformIdTokenClaims: false,
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) => {
      const person = people.get(id);
      return person ? { accountId: id, claims: () => ({ ...person }) } : undefined;
    },
    // Consent is not what these tests are about: every sign-in grants the scopes asked for.
    loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId: string }; provider: Provider } }) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const state: Pick<IdentityProvider, 'forge' | 'hold'> = { forge: undefined, hold: undefined };
  provider.use(async (ctx, next) => {
    if (ctx.path === '/token' && state.hold) await state.hold();
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && state.forge && body?.id_token) body.id_token = await state.forge(decodeJwt(body.id_token));
  });
  const handle = provider.callback();
  const server: Server = createServer((request, response) => {
    const interaction = /^\/interaction\/([\w-]+)$/.exec(request.url ?? '');
    if (!interaction) return handle(request, response);
    void (async () => {
      const details = await provider.interactionDetails(request, response);
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SIGN_IN_PAGE(details.uid, details.params.login_hint ?? ''));
        return;
      }
      const login = (await formBody(request)).get('login') ?? '';
      const result = people.has(login) ? { login: { accountId: login } } : { error: 'access_denied', error_description: 'No such account at the IdP' };
      await provider.interactionFinished(request, response, result, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    issuer,
    clientId,
    clientSecret,
    key,
    people,
    get forge() {
      return state.forge;
    },
    set forge(value) {
      state.forge = value;
    },
    get hold() {
      return state.hold;
    },
    set hold(value) {
      state.hold = value;
    },
    close,
  };
}
