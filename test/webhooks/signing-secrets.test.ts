// Which secrets sign a webhook message (CONTRACT §7: a replaced secret signs beside the new one for 24
// hours): the current one, then each replaced one still in its overlap. Once the overlaps have ended
// nothing else is opened, so an endpoint's later deliveries neither pay for it nor depend on secrets
// sealed long ago.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../src/platform/sealed-secrets.ts';
import { earlierSecretsContext, secretContext, signingSecrets } from '../../src/webhooks/endpoints.ts';

const box = new SecretBox(randomBytes(32));
const NOW = Date.UTC(2026, 10, 26, 12);
const id = 'whe_signing';

function endpoint(previousUntil: number, sealed = (text: string, context: string) => box.seal(text, context)) {
  return {
    id,
    secret_sealed: box.seal('whsec_current', secretContext(id)),
    previous_secret_sealed: sealed('whsec_previous', secretContext(id)),
    previous_secret_until: previousUntil,
    earlier_secrets_sealed: sealed(JSON.stringify([{ secret: 'whsec_earlier', until: previousUntil - 60_000 }, { secret: 'whsec_gone', until: NOW - 1 }]), earlierSecretsContext(id)),
  };
}

test('the current secret signs, then each replaced secret whose overlap has not ended, newest first', () => {
  assert.deepEqual(signingSecrets(endpoint(NOW + 120_000), box, NOW), ['whsec_current', 'whsec_previous', 'whsec_earlier']);
  assert.deepEqual(signingSecrets(endpoint(NOW + 30_000), box, NOW), ['whsec_current', 'whsec_previous']);
});

test('once the previous secret\'s overlap has ended, only the current secret signs and nothing else is opened', () => {
  const unopenable = () => 'sealed-with-a-key-long-gone';
  assert.deepEqual(signingSecrets(endpoint(NOW, unopenable), box, NOW), ['whsec_current']);
  assert.throws(() => signingSecrets(endpoint(NOW + 1, unopenable), box, NOW), 'within the overlap it is opened');
});
