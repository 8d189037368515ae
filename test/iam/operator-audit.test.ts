// Every operator change to who may get tokens lands in the audit log (never with a secret).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setGrantEnabled } from '../../src/iam/provisioning.ts';
import { rotateClientSecret } from '../../src/iam/client-admin.ts';
import { switchClient, switchUser } from '../../src/admin/operations.ts';
import { useTestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';

const server = useTestServer({}, { inProcess: true });

test('creating, re-granting, rotating, disabling and enabling are each audited with who they touched', async () => {
  const { db } = server.ctx;
  const tenant = await provisionTenant(server.ctx);
  await setGrantEnabled(db, tenant.clientId, 'client_credentials', true);
  const rotated = await rotateClientSecret(db, tenant.clientId);
  await switchClient(db, tenant.clientId, true);
  await switchClient(db, tenant.clientId, false);
  await switchUser(db, tenant.userId, true);

  const rows = await db.selectFrom('audit_log').selectAll().where('event', '=', 'operator_change')
    .where((eb) => eb.or([eb('client_id', '=', tenant.clientId), eb('user_id', '=', tenant.userId)]))
    .orderBy('at').orderBy('id').execute();
  assert.deepEqual(rows.map((r) => r.detail).sort(), [
    'client_created', 'client_disabled', 'client_enabled', 'client_secret_rotated',
    'grant_enabled:client_credentials', 'user_created', 'user_disabled',
  ]);
  assert.ok(rows.every((r) => r.outcome === 'success'));
  const everything = JSON.stringify(rows);
  for (const secret of [tenant.clientSecret, rotated.clientSecret, tenant.secret]) assert.ok(!everything.includes(secret), 'no secret in the audit log');
});
