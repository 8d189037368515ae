// Sealed secrets (src/platform/secret-box.ts): AES-256-GCM under SECRETS_KEY, each value naming its
// key, so a rotation opens old values with SECRETS_KEY_PREVIOUS while new ones use the new key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretBox, keyId } from '../../src/platform/secret-box.ts';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

test('a sealed value opens only with its key and its context, and is never the plain text', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const sealed = box.seal('client-secret-1', 'idp_1');
  assert.match(sealed, new RegExp(`^v1\\.${keyId(key)}\\.`));
  assert.doesNotMatch(sealed, /client-secret-1/);
  assert.notEqual(box.seal('client-secret-1', 'idp_1'), sealed, 'a fresh IV every time');
  assert.equal(box.open(sealed, 'idp_1'), 'client-secret-1');
  assert.throws(() => box.open(sealed, 'idp_2'), /does not open/);
  const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'B' : 'A') + sealed.slice(-1);
  assert.throws(() => box.open(tampered, 'idp_1'), /does not open/);
  assert.throws(() => new SecretBox(randomBytes(32)).open(sealed, 'idp_1'), /neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS/);
});

test('rotation: the new key seals, the previous key still opens what it sealed', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const sealedBefore = new SecretBox(oldKey).seal('s', 'ctx');
  const rotated = new SecretBox(newKey, [oldKey]);
  assert.equal(rotated.open(sealedBefore, 'ctx'), 's');
  assert.equal(rotated.isStale(sealedBefore), true);
  const sealedAfter = rotated.seal('s', 'ctx');
  assert.equal(rotated.isStale(sealedAfter), false);
  assert.equal(new SecretBox(newKey).open(sealedAfter, 'ctx'), 's', 'after the rotation the old key is no longer needed');
});

test('SECRETS_KEY and SECRETS_KEY_PREVIOUS must be 32 bytes of base64', () => {
  const key = randomBytes(32).toString('base64');
  const config = loadConfig({ SECRETS_KEY: key, SECRETS_KEY_PREVIOUS: `${randomBytes(32).toString('base64')},${randomBytes(32).toString('base64url')}` });
  assert.equal(config.secretsKey?.length, 32);
  assert.equal(config.secretsKeyPrevious.length, 2);
  assert.throws(() => loadConfig({ SECRETS_KEY: randomBytes(16).toString('base64') }), ConfigError);
  assert.throws(() => loadConfig({ SECRETS_KEY: 'not base64 at all!' }), /SECRETS_KEY must be 32 random bytes/);
  assert.equal(loadConfig({}).secretsKey, undefined);
});
