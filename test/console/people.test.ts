// The console's people (src/console/people.ts): pending invitations list newest first, and
// invitations made in the same millisecond keep the order they were made in (their key is a token
// hash, so created_at alone left them in any order).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useMigratedDatabase } from '../support/database.ts';
import { createOrganisation } from '../../src/iam/provisioning.ts';
import { inviteConsoleUser, listPendingInvitations } from '../../src/console/people.ts';

const database = useMigratedDatabase();

test('invitations made in one millisecond list newest first, every time', async () => {
  const { organisationId } = await createOrganisation(database.db, { name: 'Same Millisecond' });
  const now = Date.now();
  const made: string[] = [];
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 6; i++) {
      const { email } = await inviteConsoleUser(database.db, { organisationId, email: `person-${round}-${i}@same-ms.example`, role: 'viewer', invitedBy: null }, 'https://auth.example.com', now + round);
      made.push(email);
      const listed = await listPendingInvitations(database.db, organisationId, now);
      assert.deepEqual(listed.map((invitation) => invitation.email), made.toReversed(), `round ${round}, invitation ${i}`);
    }
  }
});
