// The token rules of the interface: keep the refresh token, exchange it at idToken for an ID token,
// reuse that ID token until shortly before its `exp`, and keep every renewed refresh token (the old
// one stops working after a grace period). Concurrent callers share one renewal.
import { TokenError } from './errors.ts';
import type { operations } from './schema.ts';

/** The body of a successful idToken (or token endpoint) answer, as the service documents it. */
export type TokenResponse = operations['idToken']['responses'][200]['content']['application/json'];

export interface TokenSessionOptions {
  baseUrl: string;
  refreshToken: string;
  /** Called with every renewed refresh token; persist it (the previous one expires after a grace period). */
  onRefreshToken?: (refreshToken: string) => void | Promise<void>;
  /** Renew this many seconds before `exp` (at most a fifth of the token's lifetime). Default 60. */
  renewBeforeSeconds?: number;
  send: (request: Request) => Promise<Response>;
  now?: () => number;
}

interface CachedToken {
  token: string;
  renewAt: number;
}

/** UTF-8 text of a base64url string, with what every runtime has (no Buffer: the client runs in browsers too). */
function base64UrlText(encoded: string): string {
  const binary = atob(encoded.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** The claims of a JWT, read without verifying it: the client only needs `exp`/`iat` for timing. */
export function decodeJwtClaims(token: string): Record<string, unknown> {
  const payload = token.split('.')[1];
  if (!payload) throw new TokenError(200, 'invalid_token', 'The service returned a token that is not a JWT.');
  return JSON.parse(base64UrlText(payload)) as Record<string, unknown>;
}

export class TokenSession {
  readonly #options: TokenSessionOptions;
  readonly #now: () => number;
  #refreshToken: string;
  #current: CachedToken | undefined;
  #renewal: Promise<string> | undefined;
  #renewals = 0;

  constructor(options: TokenSessionOptions) {
    this.#options = options;
    this.#refreshToken = options.refreshToken;
    this.#now = options.now ?? Date.now;
  }

  get refreshToken(): string {
    return this.#refreshToken;
  }

  /** How many times an ID token was fetched from idToken. */
  get renewals(): number {
    return this.#renewals;
  }

  /** A valid ID token: the cached one, or a fresh one when it is about to expire. */
  async idToken(): Promise<string> {
    if (this.#current && this.#now() < this.#current.renewAt) return this.#current.token;
    this.#renewal ??= this.#renew().finally(() => {
      this.#renewal = undefined;
    });
    return this.#renewal;
  }

  /** Forget `token` after the service refused it (revoked, or clocks disagree), so the next call renews. */
  discard(token: string): void {
    if (this.#current?.token === token) this.#current = undefined;
  }

  async #renew(): Promise<string> {
    const request = new Request(`${this.#options.baseUrl}/api/v1/iam/idToken`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.#refreshToken}`, accept: 'application/json' },
    });
    const response = await this.#options.send(request);
    const body = (await response.json().catch(() => ({}))) as Partial<TokenResponse> & { error?: string; error_description?: string };
    if (!response.ok || !body.id_token) {
      throw new TokenError(response.status, body.error ?? `http_${response.status}`, body.error_description ?? response.statusText);
    }
    this.#renewals++;
    if (body.refresh_token && body.refresh_token !== this.#refreshToken) {
      this.#refreshToken = body.refresh_token;
      await this.#options.onRefreshToken?.(body.refresh_token);
    }
    const { exp, iat } = decodeJwtClaims(body.id_token) as { exp: number; iat: number };
    const lifetimeMs = (exp - iat) * 1000;
    const marginMs = Math.min((this.#options.renewBeforeSeconds ?? 60) * 1000, lifetimeMs / 5);
    this.#current = { token: body.id_token, renewAt: exp * 1000 - marginMs };
    return body.id_token;
  }
}
