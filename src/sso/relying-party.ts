// The service as the relying party of each organisation's OpenID provider, through openid-client:
// discovery (validated against the pinned issuer), authorization code with PKCE, state and nonce,
// and full ID-token validation (signature by the provider's JWKS, issuer, audience, nonce, expiry).
// Each provider's discovered configuration is cached per instance for an hour; its JWKS is cached by
// openid-client, which fetches it again when a token names a key it does not know.
import * as oidc from 'openid-client';
import { checkOutboundUrl, guardedFetch, OutboundFailure } from './outbound.ts';
import { discoveryProblem, type DiscoveryProblem } from './discovery-failure.ts';
import { systemClock, type Clock } from '../platform/clock.ts';

const METADATA_TTL_MS = 60 * 60 * 1000;

/** A provider as the relying party needs it; `version` changes when the provider is edited. */
export interface ProviderEndpoint {
  id: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  version: number;
}

/** A failure the person is told about (and the audit log records as `reason`). */
export class SsoFailure extends Error {
  readonly reason: string;
  constructor(reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }

  /** What went wrong underneath, network detail included: for the log, never for a page. */
  get detail(): string {
    return this.cause === undefined ? this.message : describe(this.cause);
  }
}

/**
 * An issuer whose discovery document could not be used: the message keeps the detail (addresses,
 * error codes) for the operator; `problem` is the category the customer's admin is shown.
 */
export class DiscoveryFailure extends SsoFailure {
  readonly problem: DiscoveryProblem;
  constructor(issuer: string, error: unknown) {
    super('discovery_failed', `The discovery document of ${issuer} could not be used: ${describe(error)}`, { cause: error });
    this.problem = discoveryProblem(error);
  }
}

function discoveryOptions(allowInsecure: boolean): oidc.DiscoveryRequestOptions {
  return { [oidc.customFetch]: guardedFetch(allowInsecure) as oidc.CustomFetch, ...(allowInsecure ? { execute: [oidc.allowInsecureRequests] } : {}) };
}

const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost)$/;

/**
 * An issuer the service accepts: an absolute https URL without query or fragment; http only on a
 * loopback host with SSO_ALLOW_INSECURE=1. Templated multi-tenant issuers (Entra's `{tenantid}`) are
 * refused: the issuer is pinned to one tenant.
 */
export function issuerProblem(issuer: string, allowInsecure: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.search || url.hash || url.username || url.password) return 'must have no query, fragment or credentials';
  if (/[{}]|%7B|%7D/i.test(issuer)) return 'must name one tenant, not a template such as {tenantid}';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && allowInsecure && LOOPBACK_HOST.test(url.hostname)) return undefined;
  return allowInsecure ? 'must be https (http only on a loopback host)' : 'must be https (http on a loopback host only with SSO_ALLOW_INSECURE=1)';
}

function describe(error: unknown): string {
  if (error instanceof OutboundFailure) return error.message;
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return error instanceof Error ? `${error.message}${cause}` : String(error);
}

/**
 * Fetches the issuer's discovery document and returns the issuer exactly as the document spells it;
 * throws DiscoveryFailure when it cannot be fetched or names another issuer.
 */
export async function discoverIssuer(issuer: string, allowInsecure: boolean): Promise<string> {
  try {
    checkOutboundUrl(new URL(issuer), allowInsecure);
    const config = await oidc.discovery(new URL(issuer), 'discovery-check', undefined, oidc.None(), discoveryOptions(allowInsecure));
    return config.serverMetadata().issuer;
  } catch (error) {
    throw new DiscoveryFailure(issuer, error);
  }
}

export interface AuthorizationStart {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface VerifiedIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  hostedDomain: string | undefined;
}

export class RelyingParty {
  readonly #allowInsecure: boolean;
  readonly #redirectUri: string;
  readonly #clock: Pick<Clock, 'elapsed'>;
  readonly #cache = new Map<string, { version: number; fetchedAt: number; config: Promise<oidc.Configuration> }>();

  /** `clock`: the app's, whose elapsed time ages the cached configurations. */
  constructor(options: { allowInsecure: boolean; redirectUri: string; clock?: Pick<Clock, 'elapsed'> }) {
    this.#allowInsecure = options.allowInsecure;
    this.#redirectUri = options.redirectUri;
    this.#clock = options.clock ?? systemClock;
  }

  get redirectUri(): string {
    return this.#redirectUri;
  }

  /** The provider's configuration, discovered at most once an hour (and again after an edit). */
  configuration(provider: ProviderEndpoint, now = this.#clock.elapsed()): Promise<oidc.Configuration> {
    const cached = this.#cache.get(provider.id);
    if (cached && cached.version === provider.version && now - cached.fetchedAt < METADATA_TTL_MS) return cached.config;
    const config = oidc
      .discovery(new URL(provider.issuer), provider.clientId, { redirect_uris: [this.#redirectUri], response_types: ['code'] }, oidc.ClientSecretPost(provider.clientSecret), discoveryOptions(this.#allowInsecure))
      .then((discovered) => {
        // Pinned: the document must name exactly the issuer the operator registered.
        if (discovered.serverMetadata().issuer !== provider.issuer) throw new Error(`the document names the issuer ${discovered.serverMetadata().issuer}`);
        // Without this, openid-client trusts an ID token from the token endpoint on TLS alone and
        // skips its signature; the contract asks for full validation against the provider's JWKS.
        oidc.enableNonRepudiationChecks(discovered);
        return discovered;
      })
      .catch((error: unknown) => {
        this.#cache.delete(provider.id);
        throw new SsoFailure('provider_unreachable', `The sign-in service of your organisation (${provider.issuer}) could not be reached.`, { cause: error });
      });
    this.#cache.set(provider.id, { version: provider.version, fetchedAt: now, config });
    return config;
  }

  /** Origins a login page's form may lead to for these providers (CSP form-action covers redirects). */
  async authorizationOrigins(providers: ProviderEndpoint[]): Promise<string[]> {
    return Promise.all(providers.map(async (provider) => {
      try {
        const endpoint = (await this.configuration(provider)).serverMetadata().authorization_endpoint;
        return new URL(endpoint ?? provider.issuer).origin;
      } catch {
        return new URL(provider.issuer).origin;
      }
    }));
  }

  async start(provider: ProviderEndpoint, loginHint: string): Promise<AuthorizationStart> {
    const config = await this.configuration(provider);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.#redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      login_hint: loginHint,
    });
    return { url, state, nonce, codeVerifier };
  }

  /** Exchanges the code and validates the ID token in full; throws SsoFailure with the reason. */
  async finish(provider: ProviderEndpoint, callbackParams: URLSearchParams, checks: { state: string; nonce: string; codeVerifier: string }): Promise<VerifiedIdentity> {
    const config = await this.configuration(provider);
    // The registered redirect URI with the provider's answer, whatever path a proxy forwarded.
    const callbackUrl = new URL(this.#redirectUri);
    for (const [name, value] of callbackParams) callbackUrl.searchParams.append(name, value);
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { expectedState: checks.state, expectedNonce: checks.nonce, pkceCodeVerifier: checks.codeVerifier, idTokenExpected: true });
      claims = tokens.claims();
    } catch (error) {
      throw classify(error);
    }
    if (!claims) throw new SsoFailure('invalid_id_token', 'Your organisation\'s sign-in service returned no ID token.');
    return {
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : undefined,
      emailVerified: claims.email_verified === true,
      hostedDomain: typeof claims.hd === 'string' ? claims.hd.toLowerCase() : undefined,
    };
  }
}

const NETWORK_CODES = /^(ECONN|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR|OAUTH_RESPONSE_IS_NOT_CONFORM|OAUTH_RESPONSE_IS_NOT_JSON)/;

/** Whether the provider could not be reached (or answered no protocol at all), along the cause chain. */
function unreachable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (current instanceof OutboundFailure || (typeof code === 'string' && NETWORK_CODES.test(code))) return true;
  }
  return false;
}

/** The failure a person sees for what openid-client refused. */
function classify(error: unknown): SsoFailure {
  if (error instanceof oidc.AuthorizationResponseError) {
    return new SsoFailure('provider_error', `Your organisation's sign-in service answered: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}.`, { cause: error });
  }
  if (error instanceof oidc.ResponseBodyError) {
    return new SsoFailure('code_exchange_failed', `Your organisation's sign-in service refused the sign-in: ${error.error}.`, { cause: error });
  }
  if (unreachable(error)) {
    return new SsoFailure('provider_unreachable', 'Your organisation\'s sign-in service could not be reached.', { cause: error });
  }
  return new SsoFailure('invalid_id_token', `The answer of your organisation's sign-in service did not validate: ${describe(error)}`, { cause: error });
}
