// `wfs` acting on the database of a running server (contract: operator side): the server sees each change at once.
// A client the CLI creates can get tokens; disabling a client or user, or rotating a client secret,
// stops the tokens already issued on the secured API within 5 seconds. The first test runs `wfs` as
// processes of their own, as an operator does beside a running server; the rest run it in-process,
// still on a database connection of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany } from '../support/company.ts';
import { assertRefusedWithin, configurationStatus } from '../support/http.ts';
import { bearer } from '../support/tenants.ts';
import { wfsJson, wfsProcessJson } from './wfs.ts';

let server: TestServer;
let databaseUrl: string;
before(async () => {
  server = await startTestServer();
  databaseUrl = server.config.databaseUrl;
});
after(() => server.close());

async function clientCredentials(clientId: string, clientSecret: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.baseUrl}/api/v1/iam/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('a client created with wfs gets client_credentials tokens once the grant is enabled, and calls the API', async () => {
  const { organisationId } = (await wfsProcessJson(databaseUrl, ['create-organisation', '--name', 'Acme'])) as { organisationId: string };
  const { companyId } = (await wfsProcessJson(databaseUrl, ['create-company', '--org', organisationId, '--name', 'Acme Utrecht', '--timezone', 'Europe/Amsterdam', '--currency', 'EUR'])) as { companyId: string };
  const { clientId, clientSecret } = (await wfsProcessJson(databaseUrl, ['create-api-client', '--company', companyId, '--name', 'Sync', '--redirect-uri', 'https://app.example.com/cb'])) as { clientId: string; clientSecret: string };

  const refused = await clientCredentials(clientId, clientSecret);
  assert.deepEqual([refused.status, refused.body.error], [400, 'unauthorized_client']);

  await wfsProcessJson(databaseUrl, ['enable-grant', '--client', clientId, '--grant', 'client_credentials']);
  const issued = await clientCredentials(clientId, clientSecret);
  assert.equal(issued.status, 200);
  const response = await fetch(`${server.baseUrl}/api/v1/company/configuration`, { headers: bearer(String(issued.body.id_token)) });
  assert.equal(response.status, 200);
  assert.equal(((await response.json()) as { company: { id: string } }).company.id, companyId);

  await wfsProcessJson(databaseUrl, ['disable-grant', '--client', clientId, '--grant', 'client_credentials']);
  assert.equal((await clientCredentials(clientId, clientSecret)).body.error, 'unauthorized_client');
});

test('disable-api-client stops an issued ID token within 5 s and the client can no longer get tokens', async () => {
  const { tenant, token } = await signedInCompany(server.ctx);
  assert.equal(await configurationStatus(server.baseUrl, token), 200);

  assert.deepEqual(await wfsJson(databaseUrl, ['disable-api-client', '--client', tenant.clientId]), { clientId: tenant.clientId, disabled: true });
  await assertRefusedWithin(server.baseUrl, token, 5_000);

  await wfsJson(databaseUrl, ['enable-grant', '--client', tenant.clientId, '--grant', 'client_credentials']);
  const disabled = await clientCredentials(tenant.clientId, tenant.clientSecret);
  assert.deepEqual([disabled.status, disabled.body.error], [401, 'invalid_client']);
  await wfsJson(databaseUrl, ['enable-api-client', '--client', tenant.clientId]);
  assert.equal((await clientCredentials(tenant.clientId, tenant.clientSecret)).status, 200, 'enabled again');
  assert.equal(await configurationStatus(server.baseUrl, token), 401, 'the revoked token stays revoked');
});

test('disable-api-user stops the user\'s ID token within 5 s', async () => {
  const { tenant, token } = await signedInCompany(server.ctx);
  assert.equal(await configurationStatus(server.baseUrl, token), 200);
  await wfsJson(databaseUrl, ['disable-api-user', '--user', tenant.userId]);
  await assertRefusedWithin(server.baseUrl, token, 5_000);
});

test('rotate-client-secret: the old secret fails at once, the new one works, earlier tokens stop', async () => {
  const { tenant, token } = await signedInCompany(server.ctx);
  await wfsJson(databaseUrl, ['enable-grant', '--client', tenant.clientId, '--grant', 'client_credentials']);
  const { clientSecret } = (await wfsJson(databaseUrl, ['rotate-client-secret', '--client', tenant.clientId])) as { clientSecret: string };
  assert.equal((await clientCredentials(tenant.clientId, tenant.clientSecret)).status, 401);
  assert.equal((await clientCredentials(tenant.clientId, clientSecret)).status, 200);
  await assertRefusedWithin(server.baseUrl, token, 5_000);
});
