// src/iam/issue-records.ts: the issues of the moment are stored together (on SQLite in multi-row
// inserts of a power of two rows each), and of a group only those whose client row still holds what
// was checked get their grant and audit entry; the others store nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../support/server.ts';
import { testDialect } from '../support/database.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { findClient, type OAuthClient } from '../../src/iam/clients.ts';
import { newGrantId } from '../../src/iam/grants.ts';
import { generateClientSecret } from '../../src/iam/secrets.ts';
import { IssueRecords } from '../../src/iam/issue-records.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

async function clientOf(tenant: Tenant): Promise<OAuthClient> {
  const client = await findClient(server.ctx.db, tenant.clientId);
  assert.ok(client);
  return client;
}

function issue(client: OAuthClient, address: string) {
  const at = Date.now();
  return { grantId: newGrantId(), client, at, chainExpiresAt: at + 60_000, audience: 'service-api', address };
}

async function storedFor(tenant: Tenant): Promise<{ grants: number; audited: string[] }> {
  const grants = await server.ctx.db.selectFrom('grants').select('id').where('client_id', '=', tenant.clientId).execute();
  const audited = await server.ctx.db.selectFrom('audit_log').select('address').where('client_id', '=', tenant.clientId).where('event', '=', 'token_issued').execute();
  return { grants: grants.length, audited: audited.map((row) => row.address ?? '').sort() };
}

test('of 71 issues stored at once, the 70 of an unchanged client are stored and the one of a changed client is not', async () => {
  const [kept, changed] = [await provisionTenant(server.ctx), await provisionTenant(server.ctx)];
  const [keptClient, changedClient] = [await clientOf(kept), await clientOf(changed)];
  await server.ctx.db.updateTable('api_clients').set({ secret_hash: generateClientSecret().hash }).where('id', '=', changed.clientId).execute();
  const records = new IssueRecords(server.ctx.db);
  const addresses = Array.from({ length: 70 }, (_, i) => `10.0.0.${i}`);
  const outcomes = await Promise.all([...addresses.map((address) => records.store(issue(keptClient, address))), records.store(issue(changedClient, '10.0.1.1'))]);
  assert.deepEqual(outcomes, [...addresses.map(() => true), false]);
  assert.deepEqual(await storedFor(kept), { grants: 70, audited: addresses.sort() });
  assert.deepEqual(await storedFor(changed), { grants: 0, audited: [] });
});

test('an issue alone is stored alone', async () => {
  const tenant = await provisionTenant(server.ctx);
  assert.equal(await new IssueRecords(server.ctx.db).store(issue(await clientOf(tenant), '192.0.2.1')), true);
  assert.deepEqual(await storedFor(tenant), { grants: 1, audited: ['192.0.2.1'] });
});

// A disable (or an immediate rotation) updates the client's row and then revokes the grants it can
// see. A grant inserted from the row as it was before that commit, by a statement the revocation
// cannot see yet, would outlive the disable: so the insert read-locks the row and waits.
test('a grant stored while a disable is in flight waits for its commit and is then not stored', { skip: testDialect !== 'postgres' && 'PostgreSQL only: SQLite has one writer at a time' }, async () => {
  const tenant = await provisionTenant(server.ctx);
  const client = await clientOf(tenant);
  const records = new IssueRecords(server.ctx.db);
  let storing: Promise<boolean> = Promise.resolve(true);
  await server.ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('api_clients').set({ disabled: 1 }).where('id', '=', tenant.clientId).execute();
    storing = records.store(issue(client, '192.0.2.7'));
    const first = await Promise.race([storing.then(() => 'stored'), sleep(500).then(() => 'waiting')]);
    assert.equal(first, 'waiting', 'the grant waits for the disable to commit');
  });
  assert.equal(await storing, false);
  assert.deepEqual(await storedFor(tenant), { grants: 0, audited: [] });
});
