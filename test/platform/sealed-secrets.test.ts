// Sealed secrets (src/platform/sealed-secrets.ts): AES-256-GCM under SECRETS_KEY, each value naming its
// key, so a rotation opens old values with SECRETS_KEY_PREVIOUS while new ones use the new key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createCipheriv } from 'node:crypto';
import { SecretBox, keyId } from '../../src/platform/sealed-secrets.ts';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

test('a sealed value opens only with its key and its context, and is never the plain text', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const sealed = box.seal('client-secret-1', 'idp_1');
  assert.match(sealed, new RegExp(`^v2\\.${keyId(key)}\\.`));
  assert.doesNotMatch(sealed, /client-secret-1/);
  assert.notEqual(box.seal('client-secret-1', 'idp_1'), sealed, 'a fresh IV every time');
  assert.equal(box.open(sealed, 'idp_1'), 'client-secret-1');
  assert.throws(() => box.open(sealed, 'idp_2'), /does not open/);
  // The next-to-last character changed (the last one of a base64url tag carries padding bits too).
  const tampered = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.slice(-1);
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

test('values of the first format (no key id) still open, with the current or a previous key', () => {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from('webhook:wh_1'));
  const legacy = `v1.${iv.toString('base64url')}.${Buffer.concat([cipher.update('whsec_x', 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64url')}`;
  assert.equal(new SecretBox(key).open(legacy, 'webhook:wh_1'), 'whsec_x');
  assert.equal(new SecretBox(randomBytes(32), [key]).open(legacy, 'webhook:wh_1'), 'whsec_x');
  assert.equal(new SecretBox(key).isStale(legacy), true);
  assert.throws(() => new SecretBox(randomBytes(32)).open(legacy, 'webhook:wh_1'), /does not open/);
});

test('SECRETS_KEY and SECRETS_KEY_PREVIOUS must be 32 bytes of base64', () => {
  const key = randomBytes(32).toString('base64');
  const config = loadConfig({ SECRETS_KEY: key, SECRETS_KEY_PREVIOUS: `${randomBytes(32).toString('base64')},${randomBytes(32).toString('base64')}` });
  assert.equal(config.secretsKey?.length, 32);
  assert.equal(config.secretsKeyPrevious.length, 2);
  assert.throws(() => loadConfig({ SECRETS_KEY: randomBytes(16).toString('base64') }), ConfigError);
  assert.throws(() => loadConfig({ SECRETS_KEY: 'not base64 at all!' }), /SECRETS_KEY must be 32 bytes in base64/);
  assert.equal(loadConfig({}).secretsKey, undefined);
});
