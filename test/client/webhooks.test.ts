// verifyWebhook of the client package checks what the service sends as the `standardwebhooks`
// package does: a delivered message verifies with the endpoint's secret (with either secret during a
// rotation); a changed body, another secret or a stale timestamp is refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.ts';
import { startCompanyServer, type CompanyServer } from '../support/company.ts';
import { postJson } from '../support/http.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { WEBHOOKS, createEndpoint, sendTest } from '../webhooks/helpers.ts';

describe('verifyWebhook', () => {
  let company: CompanyServer;
  let receiver: Receiver;

  before(async () => {
    company = await startCompanyServer({ env: { WEBHOOK_ALLOW_INSECURE: '1' } });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await company.server.close();
  });

  it('verifies a delivered message with either secret during a rotation, and refuses what was changed', async () => {
    const { baseUrl } = company.server;
    const endpoint = await createEndpoint(baseUrl, company.token, { url: receiver.url });
    const rotated = await postJson<{ secret: string }>(`${baseUrl}${WEBHOOKS}/${endpoint.id}/rotate-secret`, company.token, {});
    await sendTest(baseUrl, company.token, endpoint.id);
    const [message] = await receiver.waitFor(1);
    assert.ok(message);
    const headers = { 'webhook-id': message.id, 'webhook-timestamp': message.timestamp, 'webhook-signature': message.signature };
    for (const secret of [endpoint.secret, rotated.body.secret]) {
      const verified = await verifyWebhook(secret, headers, message.body);
      assert.equal(verified.type, 'webhook.test');
    }
    assert.equal((await verifyWebhook(endpoint.secret, new Headers(headers), message.body)).type, 'webhook.test');
    await assert.rejects(verifyWebhook(endpoint.secret, headers, message.body.replace('webhook.test', 'user.deleted')), WebhookVerificationError);
    await assert.rejects(verifyWebhook(`whsec_${btoa('another secret of 32 bytes length')}`, headers, message.body), WebhookVerificationError);
    await assert.rejects(verifyWebhook(endpoint.secret, headers, message.body, { now: Date.now() + 10 * 60_000 }), /too far/);
    await assert.rejects(verifyWebhook(endpoint.secret, { ...headers, 'webhook-signature': '' }, message.body), WebhookVerificationError);
  });

  it('agrees with the standardwebhooks package', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const body = JSON.stringify({ type: 'shift.created', timestamp: '2026-11-25T10:00:00+01:00', data: { id: 'chg_1' } });
    const signature = new Webhook(secret).sign('chg_1', new Date(), body);
    const verified = await verifyWebhook(secret, { 'webhook-id': 'chg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': signature }, body);
    assert.equal(verified.type, 'shift.created');
  });
});
