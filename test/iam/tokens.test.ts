// Token signing (src/iam/tokens.ts) builds the compact JWS itself instead of calling jose's SignJWT:
// the header and payload must be byte for byte what SignJWT writes for the same claims, and the
// signature must verify with jose against the published key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SignJWT, importJWK, jwtVerify, type CryptoKey, type JWK } from 'jose';
import { useMigratedDatabase } from '../support/database.ts';
import { SIGNING_ALG, ensureSigningKey, signingKeyContext } from '../../src/iam/keys.ts';
import { KeyRing } from '../../src/iam/key-ring.ts';
import { SecretBox } from '../../src/platform/sealed-secrets.ts';
import { ACCESS_TOKEN_TYPE, REFRESH_TOKEN_TYPE, signIdToken, signRefreshToken } from '../../src/iam/tokens.ts';

const database = useMigratedDatabase();
const settings = { issuer: 'http://localhost:8080/api/v1/iam', accessTokenTtl: 3600, clockSkewSeconds: 30 };
const box = new SecretBox(randomBytes(32));

async function keyRing(): Promise<{ keys: KeyRing; kid: string; publicJwk: JWK }> {
  await ensureSigningKey(database.db, box);
  const keys = new KeyRing(database.db, box);
  const [publicJwk] = await keys.publishedKeys();
  assert.ok(publicJwk?.kid);
  return { keys, kid: publicJwk.kid, publicJwk };
}

/** The header and payload SignJWT writes for these claims (its signature differs: ECDSA is randomised). */
async function joseSigningInput(claims: Record<string, unknown>, kid: string, typ: string): Promise<string> {
  const row = await database.db.selectFrom('signing_keys').select('private_jwk').where('kid', '=', kid).executeTakeFirstOrThrow();
  const privateKey = (await importJWK(JSON.parse(box.open(row.private_jwk, signingKeyContext(kid))) as JWK, SIGNING_ALG)) as CryptoKey;
  const jwt = await new SignJWT(claims).setProtectedHeader({ alg: SIGNING_ALG, kid, typ }).sign(privateKey);
  return jwt.split('.').slice(0, 2).join('.');
}

test('an ID token is the JWS jose writes for its claims, and verifies with jose against the published key', async () => {
  const { keys, kid, publicJwk } = await keyRing();
  const subject = { grantId: 'sid_1', clientId: 'cli_1', userId: 'usr_1', email: 'a@example.com', companyId: 'cmp_1', organisationId: 'org_1', authTime: 1_700_000_000_500, audience: 'service-api', nonce: 'n-ü "quoted"' };
  const { token, claims } = await signIdToken(keys, settings, subject, 1_700_000_001_900);
  assert.equal(token.split('.').slice(0, 2).join('.'), await joseSigningInput({ ...claims }, kid, ACCESS_TOKEN_TYPE));
  const { payload, protectedHeader } = await jwtVerify(token, await importJWK(publicJwk, SIGNING_ALG), { issuer: settings.issuer, audience: 'service-api', typ: ACCESS_TOKEN_TYPE, currentDate: new Date(1_700_000_002_000) });
  assert.deepEqual(protectedHeader, { alg: 'ES256', kid, typ: 'JWT' });
  assert.deepEqual(payload, claims);
  assert.equal(payload.nonce, 'n-ü "quoted"');
});

test('a refresh token is the JWS jose writes for its claims, with typ rt+jwt', async () => {
  const { keys, kid, publicJwk } = await keyRing();
  const token = await signRefreshToken(keys, settings.issuer, { subject: 'usr_1', clientId: 'cli_1', grantId: 'sid_1', jti: 'rt_1', issuedAt: 1_700_000_000_000, expiresAt: 1_715_552_000_000 });
  const claims = { iss: settings.issuer, sub: 'usr_1', aud: settings.issuer, azp: 'cli_1', sid: 'sid_1', jti: 'rt_1', iat: 1_700_000_000, exp: 1_715_552_000 };
  assert.equal(token.split('.').slice(0, 2).join('.'), await joseSigningInput(claims, kid, REFRESH_TOKEN_TYPE));
  const { payload } = await jwtVerify(token, await importJWK(publicJwk, SIGNING_ALG), { typ: REFRESH_TOKEN_TYPE, currentDate: new Date(1_700_000_001_000) });
  assert.deepEqual(payload, claims);
});

test('a token whose signature was altered does not verify', async () => {
  const { keys, publicJwk } = await keyRing();
  const { token } = await signIdToken(keys, settings, { grantId: 's', clientId: 'c', userId: null, email: null, companyId: 'k', organisationId: 'o', authTime: 1_700_000_000_000, audience: 'service-api' }, 1_700_000_000_000);
  const [header, payload, signature] = token.split('.');
  const flipped = Buffer.from(signature ?? '', 'base64url');
  flipped[0] = (flipped[0] ?? 0) ^ 1;
  await assert.rejects(jwtVerify(`${header}.${payload}.${flipped.toString('base64url')}`, await importJWK(publicJwk, SIGNING_ALG)));
});
