// The revocation list learns of revocations made elsewhere (another instance, the CLI) by polling the
// grants table every REVOCATION_REFRESH_MS of the context's clock: the test moves the clock instead of
// waiting for the poll. The real interval is an hour here, so only the move can run it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock.ts';
import { createGrant, revokeGrants } from '../../src/iam/grants.ts';
import { useTestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';

const clock = new ManualClock();
const server = useTestServer({ REVOCATION_REFRESH_MS: '3600000' }, { clock });

test('a grant revoked in the database without this instance knowing is revoked here at the next poll of the clock', async () => {
  const tenant = await provisionTenant(server.ctx);
  const grantId = await createGrant(server.ctx.db, { clientId: tenant.clientId, userId: tenant.userId, kind: 'authorization_code', authTime: clock.now(), chainMaxSeconds: 3600 }, clock.now());
  // As another instance does: the row only, not this instance's list.
  await revokeGrants(server.ctx.db, { grantId }, 'revoked_elsewhere', clock.now());
  assert.equal(server.ctx.revocations.isRevoked(grantId), false, 'not before the poll');
  clock.advance(server.config.revocationRefreshMs);
  await clock.settled();
  assert.equal(server.ctx.revocations.isRevoked(grantId), true, 'after the poll the clock ran');
});
