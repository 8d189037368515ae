// Signing and strict verification of the two JWT kinds: ID tokens (= access tokens, typ JWT) and
// refresh tokens (typ rt+jwt). Verification pins the algorithm, the issuer, the audience, the expiry
// and the token type, and resolves the key only by `kid` from the database-backed key ring.
import { compactVerify, jwtVerify, decodeProtectedHeader, errors as joseErrors, type JWTPayload } from 'jose';
import { randomUUID } from 'node:crypto';
import { SIGNING_ALG } from './keys.ts';
import type { KeyRing } from './key-ring.ts';
import { signingThread } from './signing-thread.ts';

export const ACCESS_TOKEN_TYPE = 'JWT';
export const REFRESH_TOKEN_TYPE = 'rt+jwt';
export const DEFAULT_AUDIENCE = 'service-api';

/** Who an ID token is for: the grant, its client, its user and the company. */
export interface TokenSubject {
  grantId: string;
  clientId: string;
  userId: string | null;
  email: string | null;
  companyId: string;
  organisationId: string;
  authTime: number;
  audience: string;
  nonce?: string | null;
  /** Issuer of the SSO provider the login came through (adds `amr: ["fed"]` and `idp`). */
  idp?: string | null;
}

export interface AccessClaims extends JWTPayload {
  sub: string;
  azp: string;
  sid: string;
  scope: 'all';
  company_id: string;
  org_id: string;
  email?: string;
  /** A login through the organisation's own OpenID provider (CONTRACT §8): `["fed"]`. */
  amr?: string[];
  idp?: string;
}

export interface RefreshClaims extends JWTPayload {
  sub: string;
  azp: string;
  sid: string;
  jti: string;
}

export interface TokenSettings {
  issuer: string;
  accessTokenTtl: number;
  clockSkewSeconds: number;
}

export class InvalidTokenError extends Error {}

/** A kid that is not (or no longer: expired or withdrawn) in the key set. */
export const UNKNOWN_KEY = 'The token was not signed by a known key.';

/** An ID token that verified: its claims, the key that signed it, and until when it is accepted. */
export interface VerifiedIdToken {
  claims: AccessClaims;
  kid: string;
  /** Epoch seconds: `exp`, or `iat` plus ACCESS_TOKEN_TTL when that comes first (maxTokenAge). */
  acceptedUntil: number;
}

/** The encoded protected header of each key and token type: the same for every token they sign. */
const encodedHeaders = new Map<string, string>();

function encodedHeader(kid: string, typ: string): string {
  const key = `${kid} ${typ}`;
  let encoded = encodedHeaders.get(key);
  if (encoded === undefined) {
    encoded = Buffer.from(JSON.stringify({ alg: SIGNING_ALG, kid, typ })).toString('base64url');
    encodedHeaders.set(key, encoded);
  }
  return encoded;
}

/**
 * A compact JWS (RFC 7515) of `claims`, ES256 with the current key: built here rather than by
 * jose's SignJWT, whose per-token work (claim checks, header serialisation, buffer copies) cost as
 * much CPU on the event loop as the signature itself, and signed on the signing thread. The bytes
 * are jose's: header `{alg, kid, typ}`, the claims as given (test/iam/tokens.test.ts compares them).
 */
async function signJwt(keys: KeyRing, typ: string, claims: JWTPayload): Promise<string> {
  const { kid, privateKey } = await keys.signingKey();
  const signingInput = `${encodedHeader(kid, typ)}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${signingInput}.${await signingThread.sign(kid, privateKey, signingInput)}`;
}

export async function signIdToken(keys: KeyRing, settings: TokenSettings, subject: TokenSubject, now: number): Promise<{ token: string; claims: AccessClaims }> {
  const iat = Math.floor(now / 1000);
  const claims: AccessClaims = {
    iss: settings.issuer,
    sub: subject.userId ?? subject.clientId,
    aud: [subject.audience, subject.clientId],
    azp: subject.clientId,
    iat,
    exp: iat + settings.accessTokenTtl,
    auth_time: Math.floor(subject.authTime / 1000),
    jti: randomUUID(),
    sid: subject.grantId,
    scope: 'all',
    company_id: subject.companyId,
    org_id: subject.organisationId,
    ...(subject.nonce ? { nonce: subject.nonce } : {}),
    ...(subject.email ? { email: subject.email } : {}),
    ...(subject.idp ? { amr: ['fed'], idp: subject.idp } : {}),
  };
  return { token: await signJwt(keys, ACCESS_TOKEN_TYPE, claims), claims };
}

export async function signRefreshToken(
  keys: KeyRing,
  issuer: string,
  input: { subject: string; clientId: string; grantId: string; jti: string; issuedAt: number; expiresAt: number },
): Promise<string> {
  const claims: RefreshClaims = {
    iss: issuer,
    sub: input.subject,
    aud: issuer,
    azp: input.clientId,
    sid: input.grantId,
    jti: input.jti,
    iat: Math.floor(input.issuedAt / 1000),
    // Whole seconds from iat, except when capped at a chain's end (milliseconds): rounded up then,
    // since the database record (checked on every use, to the millisecond) decides expiry and the
    // JWT must never expire before it.
    exp: Math.ceil(input.expiresAt / 1000),
  };
  return signJwt(keys, REFRESH_TOKEN_TYPE, claims);
}

/**
 * `now` (epoch ms) is the clock the expiry is judged by: the context's clock, which tests move.
 * `maxAgeSeconds`, when given, refuses a token whose `iat` is older (or in the future), whatever its
 * `exp`: a token minted with a stolen key and a distant `exp` lives no longer than one we issue.
 */
async function verify<T extends JWTPayload>(
  keys: KeyRing,
  token: string,
  expected: { typ: string; audience: string; maxAgeSeconds?: number },
  settings: TokenSettings,
  now: number,
): Promise<{ payload: T; kid: string }> {
  const { typ, audience } = expected;
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== SIGNING_ALG) throw new InvalidTokenError('The token is not signed with ES256.');
    if (header.typ !== typ) throw new InvalidTokenError(typ === REFRESH_TOKEN_TYPE ? 'This is not a refresh token.' : 'This is not an ID token.');
    kid = header.kid;
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    throw new InvalidTokenError('The token is malformed.');
  }
  const key = kid ? await keys.verificationKey(kid) : undefined;
  if (!kid || !key) throw new InvalidTokenError(UNKNOWN_KEY);
  try {
    const { payload } = await jwtVerify<T>(token, key, {
      algorithms: [SIGNING_ALG],
      issuer: settings.issuer,
      audience,
      typ,
      clockTolerance: settings.clockSkewSeconds,
      currentDate: new Date(now),
      requiredClaims: ['iat', 'exp', 'sub', 'sid'],
      ...(expected.maxAgeSeconds === undefined ? {} : { maxTokenAge: expected.maxAgeSeconds }),
    });
    return { payload, kid };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError('The token has expired.');
    if (error instanceof joseErrors.JWTClaimValidationFailed) throw new InvalidTokenError(`The token's ${error.claim} claim is not acceptable.`);
    throw new InvalidTokenError('The token signature is invalid.');
  }
}

/**
 * ID tokens are stateless, so their age is bounded by ACCESS_TOKEN_TTL as well as by `exp`. Refresh
 * tokens need no such bound: each is recorded by `jti`, and its record's expiry decides (renewal.ts).
 */
export async function verifyIdToken(keys: KeyRing, token: string, settings: TokenSettings, now: number, audience = DEFAULT_AUDIENCE): Promise<VerifiedIdToken> {
  const { payload: claims, kid } = await verify<AccessClaims>(keys, token, { typ: ACCESS_TOKEN_TYPE, audience, maxAgeSeconds: settings.accessTokenTtl }, settings, now);
  // Both claims are required and checked numeric by jwtVerify.
  return { claims, kid, acceptedUntil: Math.min(claims.exp ?? 0, (claims.iat ?? 0) + settings.accessTokenTtl) };
}

export async function verifyRefreshToken(keys: KeyRing, token: string, settings: TokenSettings, now: number): Promise<RefreshClaims> {
  return (await verify<RefreshClaims>(keys, token, { typ: REFRESH_TOKEN_TYPE, audience: settings.issuer }, settings, now)).payload;
}

/**
 * The grant and client a token of ours names, checking only that we signed it (either kind, expired
 * or not): enough for revocation (RFC 7009), where an expired ID token still identifies its grant.
 */
export async function grantOfToken(keys: KeyRing, token: string, issuer: string): Promise<{ grantId: string; clientId: string } | undefined> {
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== SIGNING_ALG || !header.kid || (header.typ !== ACCESS_TOKEN_TYPE && header.typ !== REFRESH_TOKEN_TYPE)) return undefined;
    const key = await keys.verificationKey(header.kid);
    if (!key) return undefined;
    const { payload } = await compactVerify(token, key, { algorithms: [SIGNING_ALG] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Partial<RefreshClaims>;
    if (claims.iss !== issuer || typeof claims.sid !== 'string' || typeof claims.azp !== 'string') return undefined;
    return { grantId: claims.sid, clientId: claims.azp };
  } catch {
    return undefined;
  }
}
