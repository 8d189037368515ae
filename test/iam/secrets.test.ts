// User secrets and console passwords: scrypt at the configured cost, and every hash verifies at the cost it was made with.
import assert from 'node:assert/strict';
import test from 'node:test';
import { hashUserSecret, unknownUserHash, useUserSecretCost, verifyUserSecret } from '../../src/iam/secrets.ts';
import { TEST_PASSWORD_HASH_COST } from '../support/database.ts';

test('a new hash carries the configured scrypt cost; a hash made at another cost keeps verifying', async (t) => {
  t.after(() => useUserSecretCost(Number(TEST_PASSWORD_HASH_COST)));
  useUserSecretCost(11);
  const older = await hashUserSecret('correct horse');
  assert.match(older, /^scrypt\$2048\$8\$1\$/);
  useUserSecretCost(10);
  const newer = await hashUserSecret('correct horse');
  assert.match(newer, /^scrypt\$1024\$8\$1\$/);
  assert.equal(await verifyUserSecret('correct horse', older), true);
  assert.equal(await verifyUserSecret('correct horse', newer), true);
  assert.equal(await verifyUserSecret('correct horsf', older), false);
});

test('the hash checked for an unknown user costs what a real one costs, and nothing matches it', async (t) => {
  t.after(() => useUserSecretCost(Number(TEST_PASSWORD_HASH_COST)));
  useUserSecretCost(12);
  assert.match(unknownUserHash(), /^scrypt\$4096\$/);
  assert.equal(await verifyUserSecret('', unknownUserHash()), false);
});
