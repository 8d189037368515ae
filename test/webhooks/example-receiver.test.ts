// examples/webhook-receiver.ts receives and verifies what the service sends, and refuses what it did
// not sign.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/server.ts';
import { useCompanyServer } from '../support/company.ts';
import { eventually } from '../multi-instance/client.ts';
import { createEndpoint, deliveries, sendTest } from './helpers.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/webhook-receiver.ts', import.meta.url));

const company = useCompanyServer({ env: { WEBHOOK_ALLOW_INSECURE: '1' }, inProcess: true });

test('examples/webhook-receiver.ts verifies a test message and refuses a forged one', async () => {
  const port = await freePort();
  const endpoint = await createEndpoint(company.server.baseUrl, company.token, { url: `http://127.0.0.1:${port}/` });
  const child = spawn(process.execPath, [EXAMPLE, '--port', String(port)], { env: { PATH: process.env.PATH ?? '', WFS_WEBHOOK_SECRET: endpoint.secret }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await eventually('the receiver listens', 15_000, async () => output.includes('Receiving webhooks'));
    const messageId = await sendTest(company.server.baseUrl, company.token, endpoint.id);
    await eventually('the receiver handled the test message', 10_000, async () => output.includes('webhook.test'));
    await eventually('the delivery is logged', 5000, async () => (await deliveries(company.server.baseUrl, company.token, endpoint.id)).length === 1);
    const [delivery] = await deliveries(company.server.baseUrl, company.token, endpoint.id);
    assert.equal(delivery?.messageId, messageId);
    assert.equal(delivery?.statusCode, 204);

    const forged = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' }, body: '{"type":"user.deleted"}' });
    assert.equal(forged.status, 401);
  } finally {
    child.kill();
  }
});
