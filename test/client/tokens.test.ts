import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { TokenError, WfsClient, decodeJwtClaims } from '../../packages/client/src/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';

// ID tokens live 5 s (the client renews a fifth of that, 1 s, before exp); refresh tokens live 8 s,
// so the service renews them once less than 4 s remain. Claims count whole seconds, so moves are
// computed from `exp`. The service and the clients share one ManualClock, which the tests move.
const clock = new ManualClock();
const server = useTestServer({ ACCESS_TOKEN_TTL: '5', REFRESH_TOKEN_TTL: '8' }, { clock });
const now = () => clock.now();

/** A fetch that records the paths it sends, in front of the real server. */
function recordingFetch(): { fetch: (request: Request) => Promise<Response>; paths: string[] } {
  const paths: string[] = [];
  return { paths, fetch: (request) => (paths.push(new URL(request.url).pathname), fetch(request)) };
}

test('the client logs in with the refresh token once and reuses the ID token until shortly before exp', async () => {
  const { tenant, refreshToken } = await signedInCompany(server.ctx);
  const recorder = recordingFetch();
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken, fetch: recorder.fetch, now });

  const [a, b, c] = await Promise.all([0, 1, 2].map(() => client.request('GET', '/api/v1/company/configuration')));
  for (const body of [a, b, c]) assert.equal((body as { company: { id: string } }).company.id, tenant.companyId);
  assert.equal(client.tokens.renewals, 1, 'concurrent calls share one renewal');
  assert.deepEqual(recorder.paths.filter((p) => p.endsWith('/idToken')), ['/api/v1/iam/idToken']);

  const first = await client.tokens.idToken();
  const { exp } = decodeJwtClaims(first) as { exp: number };
  clock.set(exp * 1000 - 2000); // 2 s before exp: outside the 1 s margin
  assert.equal(await client.tokens.idToken(), first, 'reused until the renewal margin');
  assert.equal(client.tokens.renewals, 1);

  clock.set(exp * 1000 - 500); // 0.5 s before exp: inside the margin
  await client.request('GET', '/api/v1/company/configuration');
  assert.equal(client.tokens.renewals, 2);
  const second = await client.tokens.idToken();
  assert.notEqual(second, first);
  const claims = decodeJwtClaims(second) as { exp: number; iat: number; sub: string };
  assert.equal(claims.exp - claims.iat, 5);
  assert.equal(claims.sub, tenant.userId);
});

test('every renewed refresh token reaches the caller\'s store, and the client keeps using the newest', async () => {
  const { refreshToken } = await signedInCompany(server.ctx);
  const stored: string[] = [];
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken, onRefreshToken: (token) => void stored.push(token), now });

  await client.request('GET', '/api/v1/company/configuration');
  assert.deepEqual(stored, [], 'a fresh refresh token is not renewed');

  clock.advance(4200); // past half of the refresh token's 8 s life
  await client.request('GET', '/api/v1/company/configuration');
  assert.equal(stored.length, 1);
  assert.notEqual(stored[0], refreshToken);
  assert.equal(client.tokens.refreshToken, stored[0]);
  const successor = new WfsClient({ baseUrl: server.baseUrl, refreshToken: stored[0] ?? '' });
  assert.ok(await successor.tokens.idToken(), 'the stored refresh token logs in');
});

test('a refused refresh token is a TokenError with the OAuth error code', async () => {
  const { refreshToken } = await signedInCompany(server.ctx);
  const client = new WfsClient({ baseUrl: server.baseUrl, refreshToken: `${refreshToken}x` });
  await assert.rejects(client.request('GET', '/api/v1/company/configuration'), (error: unknown) => {
    assert.ok(error instanceof TokenError);
    assert.equal(error.status, 401);
    assert.equal(error.error, 'invalid_token');
    return true;
  });
});
