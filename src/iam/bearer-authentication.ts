// Authentication of the secured company API, applied once to the whole subtree as a hook: a Bearer ID
// token, strictly verified (algorithm, kid, issuer, audience, expiry, age, type), not revoked, resolved
// to its company and organisation. Verified tokens are cached (bounded, until they expire) under the
// Authorization header that carried them, so a repeated header skips the parsing too; what can change
// after verification runs on every request against memory: expiry, revocation (the in-memory list)
// and whether the signing key is still in the key ring (a withdrawn key leaves it). Each connection also remembers
// the last header it authenticated: a keep-alive client sends the same one again, and comparing two
// strings costs less than hashing a fresh ~800-character one for the Map (~2 % of a cached read's
// samples, docs/benchmarks.md).
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../platform/errors.ts';
import type { Principal } from '../tenancy/principal.ts';
import { InvalidTokenError, UNKNOWN_KEY, verifyIdToken, type AccessClaims, type TokenSettings, type VerifiedIdToken } from './tokens.ts';
import type { KeyRing } from './key-ring.ts';
import type { RevocationList } from './revocations.ts';
import type { Clock } from '../platform/clock.ts';

export type { Principal };

export interface AuthenticatorDeps {
  keys: KeyRing;
  revocations: RevocationList;
  config: TokenSettings;
  clock: Clock;
}

const CACHE_LIMIT = 10_000;
const EXPIRED = 'The token has expired.';
const REVOKED = 'The token has been revoked.';

function missingToken(): ProblemError {
  return new ProblemError({
    code: 'missing_token',
    detail: 'Send an ID token as "Authorization: Bearer <token>".',
    headers: { 'WWW-Authenticate': 'Bearer' },
  });
}

function invalidToken(detail: string): ProblemError {
  return new ProblemError({
    code: 'invalid_token',
    detail,
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"` },
  });
}

/**
 * The Bearer token of the request: undefined when it sent none (no header, or another scheme such as
 * Basic: RFC 6750 §3.1 calls that no authentication information), '' when the Bearer value is malformed.
 */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header || !/^Bearer(\s|$)/i.test(header)) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match?.[1] ?? '';
}

export class Authenticator {
  readonly #deps: AuthenticatorDeps;
  /** Verified tokens by the Authorization header value they were verified from. */
  readonly #cache = new Map<string, VerifiedIdToken>();
  /** The last verified header and its token, by the connection (socket) that sent it. */
  readonly #lastOnConnection = new WeakMap<object, { header: string; verified: VerifiedIdToken; principal: Principal }>();

  constructor(deps: AuthenticatorDeps) {
    this.#deps = deps;
  }

  async #verify(header: string, token: string): Promise<VerifiedIdToken> {
    let verified: VerifiedIdToken;
    try {
      verified = await verifyIdToken(this.#deps.keys, token, this.#deps.config, this.#deps.clock.now());
    } catch (error) {
      if (error instanceof InvalidTokenError) throw invalidToken(error.message);
      throw error;
    }
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(header, verified);
    return verified;
  }

  /**
   * The request's principal: synchronously for a token verified before (the cache holds it), through
   * a promise when its signature still has to be checked. Throws (or rejects) with a 401 problem.
   */
  authenticate(request: FastifyRequest): Principal | Promise<Principal> {
    const header = request.headers.authorization;
    if (header === undefined) throw missingToken();
    const connection = request.raw.socket;
    const last = this.#lastOnConnection.get(connection);
    if (last !== undefined && last.header === header) {
      this.#check(header, last.verified);
      return last.principal;
    }
    // Only a header that carried a verified token is cached: a hit needs no parsing.
    const cached = this.#cache.get(header);
    if (cached) return this.#remembered(connection, header, cached);
    const token = bearerToken(request);
    if (token === undefined) throw missingToken();
    if (token === '') throw invalidToken('The Bearer token is empty or malformed.');
    return this.#verify(header, token).then((verified) => this.#remembered(connection, header, verified));
  }

  #remembered(connection: object, header: string, verified: VerifiedIdToken): Principal {
    this.#check(header, verified);
    const principal = principalOf(verified.claims);
    this.#lastOnConnection.set(connection, { header, verified, principal });
    return principal;
  }

  /**
   * The principal of a request whose Authorization header is the one its connection last verified,
   * when that token is neither expired nor revoked (the same checks as authenticate); undefined
   * otherwise, with nothing changed: the request then goes through authenticate.
   */
  rememberedPrincipal(connection: object, header: string | undefined): Principal | undefined {
    const last = this.#lastOnConnection.get(connection);
    return last !== undefined && last.header === header && this.#failure(last.verified) === undefined ? last.principal : undefined;
  }

  /** Checks what can change after verification (expiry, key withdrawal, revocation) on every request. */
  #check(header: string, verified: VerifiedIdToken): void {
    const failure = this.#failure(verified);
    if (failure === undefined) return;
    // An expired token, or one whose key was withdrawn, will never be accepted again.
    if (failure !== REVOKED) this.#cache.delete(header);
    throw invalidToken(failure);
  }

  #failure({ claims, kid, acceptedUntil }: VerifiedIdToken): string | undefined {
    if (acceptedUntil + this.#deps.config.clockSkewSeconds < this.#deps.clock.now() / 1000) return EXPIRED;
    if (!this.#deps.keys.verifies(kid)) return UNKNOWN_KEY;
    if (this.#deps.revocations.isRevoked(claims.sid)) return REVOKED;
    return undefined;
  }
}

/** Frozen: the same principal serves every request of a connection that sends the same token. */
function principalOf(claims: AccessClaims): Principal {
  return Object.freeze({
    clientId: claims.azp,
    userId: claims.email ? claims.sub : null,
    companyId: claims.company_id,
    organisationId: claims.org_id,
    grantId: claims.sid,
  });
}
