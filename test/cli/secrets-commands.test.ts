// `wfs reseal-secrets` (docs/sso.md, "SECRETS_KEY and its rotation"): after SECRETS_KEY changes, every
// stored sealed secret — token-signing keys, webhook signing secrets, SSO client secrets, console TOTP secrets — is sealed
// again with the new key, so the old one can be retired. Run as a real process against a database
// whose rows were sealed with the old key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { useMigratedDatabase } from '../support/database.ts';
import { keyId, SecretBox } from '../../src/platform/sealed-secrets.ts';
import { createCompany, createOrganisation } from '../../src/iam/provisioning.ts';
import { earlierSecretsContext, secretContext, signingSecrets } from '../../src/webhooks/endpoints.ts';
import { openTotpSecret, sealTotpSecret } from '../../src/console/totp-secrets.ts';
import { signingKeyContext } from '../../src/iam/keys.ts';
import { wfs, wfsJson } from './wfs.ts';

const OLD_KEY = randomBytes(32);
const NEW_KEY = randomBytes(32);
const ROTATING = { SECRETS_KEY: NEW_KEY.toString('base64'), SECRETS_KEY_PREVIOUS: OLD_KEY.toString('base64') };
const NOW = Date.UTC(2026, 10, 25, 12);

const database = useMigratedDatabase();

/** A signing key row whose private JWK is `store`d as the service did before the rotation (or before keys were sealed). */
async function signingKeyRow(store: (privateJwk: string, kid: string) => string): Promise<void> {
  const kid = `key_${randomBytes(6).toString('hex')}`;
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const privateJwk = JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: 'ES256' });
  const publicJwk = JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' });
  await database.db
    .insertInto('signing_keys')
    .values({ kid, alg: 'ES256', private_jwk: store(privateJwk, kid), public_jwk: publicJwk, created_at: NOW, activates_at: NOW, retired_at: null, unpublish_at: null })
    .execute();
}

/** One of each sealed secret, sealed with `key` as the service did before the rotation. */
async function rowsSealedWith(key: Buffer): Promise<{ endpointId: string; providerId: string; email: string }> {
  const box = new SecretBox(key);
  await signingKeyRow((privateJwk, kid) => box.seal(privateJwk, signingKeyContext(kid)));
  const { organisationId } = await createOrganisation(database.db, { name: 'Acme Hospitality' });
  const { companyId } = await createCompany(database.db, { organisationId, name: 'Acme Utrecht', timezone: 'Europe/Amsterdam', currency: 'EUR' });
  const endpointId = `whe_${randomBytes(6).toString('hex')}`;
  await database.db
    .insertInto('webhook_endpoints')
    .values({
      id: endpointId, company_id: companyId, url: 'https://hooks.example.com/wfs', types: null, description: null, enabled: 1, disabled_reason: null,
      secret_sealed: box.seal('whsec_current', secretContext(endpointId)), previous_secret_sealed: box.seal('whsec_previous', secretContext(endpointId)), previous_secret_until: NOW + 60_000,
      earlier_secrets_sealed: box.seal(JSON.stringify([{ secret: 'whsec_earlier', until: NOW + 30_000 }]), earlierSecretsContext(endpointId)),
      created_at: NOW, updated_at: NOW, origin_seq: 0, delivered_seq: 0, head_message_id: null, head_attempt: 0, next_attempt_at: 0, lease_owner: null, lease_until: 0,
    })
    .execute();
  const providerId = `ssp_${randomBytes(6).toString('hex')}`;
  await database.db
    .insertInto('sso_providers')
    .values({ id: providerId, organisation_id: organisationId, issuer: 'https://idp.example.com', client_id: 'wfs', client_secret_encrypted: box.seal('idp-client-secret', providerId), created_at: NOW, updated_at: NOW })
    .execute();
  const email = `${randomBytes(4).toString('hex')}@acme.example`;
  await database.db
    .insertInto('console_users')
    .values({ id: `cus_${randomBytes(6).toString('hex')}`, organisation_id: organisationId, email, role: 'admin', password_hash: 'unused', totp_secret: sealTotpSecret(box, 'JBSWY3DPEHPK3PXP', email), last_totp_step: 0, created_at: NOW })
    .execute();
  return { endpointId, providerId, email };
}

test('reseal-secrets seals every stored secret again with the new key; afterwards the new key alone opens them all', async () => {
  const { endpointId, providerId, email } = await rowsSealedWith(OLD_KEY);
  await signingKeyRow((privateJwk) => privateJwk); // stored in clear by a release before keys were sealed

  assert.deepEqual(await wfsJson(database.url, ['reseal-secrets'], ROTATING), { resealed: { signingKeys: 2, webhookSecrets: 3, ssoClientSecrets: 1, consoleTotpSecrets: 1 } });
  assert.deepEqual(await wfsJson(database.url, ['reseal-secrets'], ROTATING), { resealed: { signingKeys: 0, webhookSecrets: 0, ssoClientSecrets: 0, consoleTotpSecrets: 0 } }, 'a second run finds nothing stale');

  const onlyNew = new SecretBox(NEW_KEY);
  const signingKeys = await database.db.selectFrom('signing_keys').select(['kid', 'private_jwk']).execute();
  assert.equal(signingKeys.length, 2);
  for (const row of signingKeys) assert.equal((JSON.parse(onlyNew.open(row.private_jwk, signingKeyContext(row.kid))) as { kid: string }).kid, row.kid);
  const endpoint = await database.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirstOrThrow();
  assert.deepEqual(signingSecrets(endpoint, onlyNew, NOW), ['whsec_current', 'whsec_previous', 'whsec_earlier']);
  const provider = await database.db.selectFrom('sso_providers').selectAll().where('id', '=', providerId).executeTakeFirstOrThrow();
  assert.equal(onlyNew.open(provider.client_secret_encrypted, providerId), 'idp-client-secret');
  const user = await database.db.selectFrom('console_users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
  assert.equal(openTotpSecret(onlyNew, user.totp_secret, email), 'JBSWY3DPEHPK3PXP');
  assert.throws(() => openTotpSecret(onlyNew, user.totp_secret, `other.${email}`), /does not open/, "a TOTP secret copied to another person's row does not open");
});

test('without the old key in SECRETS_KEY_PREVIOUS, reseal-secrets fails naming the key it lacks, and the value stays sealed as it was', async () => {
  const { providerId } = await rowsSealedWith(randomBytes(32));
  await signingKeyRow((privateJwk) => privateJwk);
  const before = await database.db.selectFrom('sso_providers').select('client_secret_encrypted').where('id', '=', providerId).executeTakeFirstOrThrow();
  const orphanKeyId = before.client_secret_encrypted.split('.')[1] ?? '';

  const run = await wfs(database.url, ['reseal-secrets'], { SECRETS_KEY: NEW_KEY.toString('base64') });
  assert.equal(run.code, 1);
  assert.match(run.stderr + run.stdout, new RegExp(`made with key ${orphanKeyId}`));
  assert.notEqual(orphanKeyId, keyId(NEW_KEY));
  const after = await database.db.selectFrom('sso_providers').select('client_secret_encrypted').where('id', '=', providerId).executeTakeFirstOrThrow();
  assert.equal(after.client_secret_encrypted, before.client_secret_encrypted);
  const plain = await database.db.selectFrom('signing_keys').select('kid').where('private_jwk', 'like', '{%').execute();
  assert.equal(plain.length, 1, 'a key in clear is not sealed by a run whose key does not open the sealed ones');
});
