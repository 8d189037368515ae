import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { bearer } from '../support/tenants.ts';

const server = useTestServer();

test('getConfiguration returns the token company with its (empty) entity lists', async () => {
  const { tenant, token } = await signedInCompany(server.ctx, { name: 'Bakery' });
  const response = await fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(token) });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { company: { id: string; name: string; timezone: string } };
  assert.deepEqual(body, {
    company: { id: tenant.companyId, name: 'Bakery', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' },
    departments: [],
    positions: [],
    shiftTypes: [],
    contractTypes: [],
  });
});

test('getConfiguration without a token is 401 problem+json with a bare Bearer challenge', async () => {
  const response = await fetch(`${server.baseUrl}/api/v1/company/configuration`);
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), 'Bearer');
  assert.match(response.headers.get('content-type') ?? '', /application\/problem\+json/);
  const body = (await response.json()) as { code: string; requestId: string };
  assert.equal(body.code, 'missing_token');
  assert.equal(body.requestId, response.headers.get('x-request-id'));
});

test('a refresh token is refused on a secured route', async () => {
  const { refreshToken } = await signedInCompany(server.ctx);
  const response = await fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(refreshToken) });
  assert.equal(response.status, 401);
  assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  assert.equal(((await response.json()) as { code: string }).code, 'invalid_token');
});
