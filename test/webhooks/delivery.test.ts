// Webhook delivery (CONTRACT §7) to a real receiver on 127.0.0.1: Standard Webhooks signatures that
// the `standardwebhooks` package verifies (two during a rotation), order with a failing message
// holding the later ones back, the retry schedule driven by a ManualClock, Retry-After, 3xx and
// timeouts as failures, 410 and an exhausted schedule disabling the endpoint, enabling resuming,
// retry of a delivery, and the destination checked again at delivery. On the real clock: each retry
// waits its pause from the end of the failed attempt (a slow answer, a timeout), and goes out at its
// time rather than at a later poll.
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/platform/clock.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany, type SignedInCompany } from '../support/company.ts';
import { mintTokens } from '../support/tenants.ts';
import { postJson } from '../support/http.ts';
import { eventually } from '../multi-instance/client.ts';
import { startReceiver, assertVerifies, verified, type Receiver, type ReceivedMessage } from './receiver.ts';
import { WEBHOOKS, createEndpoint, deliveries, patchEndpoint, readEndpoint, sendTest } from './helpers.ts';

const SCHEDULE = '5s,5m,30m';

/**
 * Runs `check` with Date at the message's webhook-timestamp: the server's ManualClock is hours or days
 * ahead of the real one by now, and standardwebhooks refuses a timestamp 5 minutes from its own Date.
 */
function asSent(message: ReceivedMessage, check: () => void): void {
  mock.timers.enable({ apis: ['Date'], now: Number(message.timestamp) * 1000 });
  try {
    check();
  } finally {
    mock.timers.reset();
  }
}

/** The message carries one signature per `signing` secret, each verifying alone, and none that `stopped` verifies. */
function assertSignedBy(message: ReceivedMessage | undefined, signing: string[], stopped: string[]): void {
  assert.ok(message);
  assert.equal(message.signature.split(' ').length, signing.length);
  asSent(message, () => {
    for (const secret of stopped) assert.throws(() => verified(secret, message), /No matching signature/, `${secret.slice(0, 12)}… has stopped signing`);
    for (const secret of signing) assertVerifies(secret, message);
  });
}

describe('webhook delivery', () => {
  const clock = new ManualClock();
  let server: TestServer;
  let company: SignedInCompany;
  let receiver: Receiver;

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_INSECURE: '1', WEBHOOK_RETRY_SCHEDULE: SCHEDULE, WEBHOOK_TIMEOUT_MS: '500' }, { clock, inProcess: true });
    company = await signedInCompany(server.ctx);
  });
  after(() => server.close());
  /** An ID token valid at the server's clock: the tests move it by hours and days, past any earlier token's expiry. */
  const token = async (): Promise<string> => (await mintTokens(server.ctx, company.tenant)).id_token;

  async function freshReceiver(script?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
    await receiver?.close();
    receiver = await startReceiver(script);
    return receiver;
  }
  after(() => receiver?.close());

  /** Rotates the endpoint's secret `times` times, `pauseMs` apart on the server's clock; answers the new secrets. */
  async function rotate(endpointId: string, times: number, pauseMs = 0): Promise<string[]> {
    const secrets: string[] = [];
    for (let rotation = 0; rotation < times; rotation += 1) {
      const rotated = await postJson<{ secret: string }>(`${server.baseUrl}${WEBHOOKS}/${endpointId}/rotate-secret`, await token(), {});
      assert.equal(rotated.status, 200, rotated.text);
      secrets.push(rotated.body.secret);
      clock.advance(pauseMs);
    }
    return secrets;
  }

  it('signs a test message so that standardwebhooks verifies it', async () => {
    await freshReceiver();
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    const messageId = await sendTest(server.baseUrl, await token(), endpoint.id);
    const [message] = await receiver.waitFor(1);
    assert.ok(message);
    assert.equal(message.id, messageId);
    const body = verified(endpoint.secret, message) as { type: string; timestamp: string; data: { endpointId: string } };
    assert.equal(body.type, 'webhook.test');
    assert.equal(body.data.endpointId, endpoint.id);
    assert.equal(message.headers['content-type'], 'application/json');
    assert.throws(() => verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, message), 'another secret does not verify');
    await eventually('the delivery is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 1);
    const [delivery] = await deliveries(server.baseUrl, await token(), endpoint.id);
    assert.equal(delivery?.messageId, messageId);
    assert.equal(delivery?.statusCode, 204);
    assert.equal(delivery?.error, null);
    assert.equal(delivery?.attempt, 1);
    assert.equal(delivery?.nextAttemptAt, null);
  });

  it('signs with both secrets for 24 hours after a rotation, each verifying alone', async () => {
    await freshReceiver();
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    const rotated = await postJson<{ secret: string }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/rotate-secret`, await token(), {});
    await sendTest(server.baseUrl, await token(), endpoint.id);
    const [message] = await receiver.waitFor(1);
    assert.ok(message);
    assert.equal(message.signature.split(' ').length, 2);
    assertVerifies(endpoint.secret, message);
    assertVerifies(rotated.body.secret, message);

    clock.advance(24 * 3600_000 + 1000);
    await sendTest(server.baseUrl, await token(), endpoint.id);
    const [, later] = await receiver.waitFor(2);
    assert.ok(later);
    assert.equal(later.signature.split(' ').length, 1, 'the old secret has stopped signing');
    assert.throws(() => verified(endpoint.secret, later));
  });

  it('keeps every secret replaced within 24 hours signing until 24 hours after its replacement, also through quick rotations', async () => {
    await freshReceiver();
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    const secrets = [endpoint.secret, ...(await rotate(endpoint.id, 3, 60_000))];
    await sendTest(server.baseUrl, await token(), endpoint.id);
    assertSignedBy((await receiver.waitFor(1))[0], secrets, []);

    // 24 hours after the first rotation (and 2 and 1 minutes before the others' ends): only the first secret has stopped.
    clock.advance(24 * 3600_000 - 3 * 60_000 + 1000);
    await sendTest(server.baseUrl, await token(), endpoint.id);
    assertSignedBy((await receiver.waitFor(2))[1], secrets.slice(1), secrets.slice(0, 1));
  });

  it('signs with the current secret and at most 4 replaced ones: a fifth rotation within 24 hours ends the oldest overlap', async () => {
    await freshReceiver();
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    const secrets = [endpoint.secret, ...(await rotate(endpoint.id, 5))];
    await sendTest(server.baseUrl, await token(), endpoint.id);
    assertSignedBy((await receiver.waitFor(1))[0], secrets.slice(1), secrets.slice(0, 1));
  });

  it('holds later messages back while one fails, retries it on the schedule, then delivers in order', async () => {
    await freshReceiver((index) => ({ status: index < 2 ? 500 : 200 }));
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    const first = await sendTest(server.baseUrl, await token(), endpoint.id);
    const second = await sendTest(server.baseUrl, await token(), endpoint.id);
    await receiver.waitFor(1);
    // The attempt is logged after the answer arrives: waited for, as a fixed sleep may end first under load.
    await eventually('the failure is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 1);
    await sleep(700);
    assert.deepEqual(receiver.received.map((message) => message.id), [first], 'the second waits behind the failing first');
    let [failed] = await deliveries(server.baseUrl, await token(), endpoint.id);
    assert.equal(failed?.statusCode, 500);
    assert.equal(failed?.error, 'HTTP 500');
    const wait = Date.parse(failed?.nextAttemptAt ?? '') - Date.parse(failed?.attemptedAt ?? '');
    assert.ok(wait >= 5000 && wait <= 5500, `first retry after 5 s plus at most 10 %: ${wait} ms`);

    clock.advance(5600);
    await receiver.waitFor(2);
    await eventually('the second failure is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 2);
    await sleep(300);
    assert.deepEqual(receiver.received.map((message) => message.id), [first, first]);
    [failed] = await deliveries(server.baseUrl, await token(), endpoint.id);
    assert.equal(failed?.attempt, 2);
    const secondWait = Date.parse(failed?.nextAttemptAt ?? '') - Date.parse(failed?.attemptedAt ?? '');
    assert.ok(secondWait >= 300_000 && secondWait <= 330_000, `second retry after 5 min: ${secondWait} ms`);

    clock.advance(331_000);
    await receiver.waitFor(4);
    assert.deepEqual(receiver.received.map((message) => message.id), [first, first, first, second]);
    assert.deepEqual(receiver.accepted().map((message) => message.id), [first, second]);
  });

  it('treats a redirect and a late answer as failures', async () => {
    await freshReceiver((index) => (index === 0 ? { status: 302, headers: { location: 'https://example.com/' } } : index === 1 ? { status: 200, delayMs: 1500 } : { status: 200 }));
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    await sendTest(server.baseUrl, await token(), endpoint.id);
    await receiver.waitFor(1);
    await eventually('the redirect is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 1);
    assert.equal((await deliveries(server.baseUrl, await token(), endpoint.id))[0]?.statusCode, 302);
    clock.advance(6000);
    await receiver.waitFor(2);
    await eventually('the timeout is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 2);
    const [late] = await deliveries(server.baseUrl, await token(), endpoint.id);
    assert.equal(late?.statusCode, null);
    assert.match(late?.error ?? '', /no answer within 500 ms/);
  });

  it('waits a Retry-After of a 429 when it is longer than the schedule', async () => {
    await freshReceiver((index) => (index === 0 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200 }));
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    await sendTest(server.baseUrl, await token(), endpoint.id);
    await eventually('the 429 is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 1);
    const [limited] = await deliveries(server.baseUrl, await token(), endpoint.id);
    assert.equal(Date.parse(limited?.nextAttemptAt ?? '') - Date.parse(limited?.attemptedAt ?? ''), 120_000);
    clock.advance(60_000);
    await sleep(700);
    assert.equal(receiver.received.length, 1, 'not retried after the schedule\'s 5 s');
    clock.advance(61_000);
    await receiver.waitFor(2);
  });

  it('disables the endpoint on 410 and resumes with the failed message when enabled again', async () => {
    await freshReceiver((index) => ({ status: index === 0 ? 410 : 200 }));
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    const first = await sendTest(server.baseUrl, await token(), endpoint.id);
    const second = await sendTest(server.baseUrl, await token(), endpoint.id);
    await receiver.waitFor(1);
    await eventually('the endpoint is disabled', 5000, async () => !(await readEndpoint(server.baseUrl, await token(), endpoint.id)).enabled);
    assert.equal((await readEndpoint(server.baseUrl, await token(), endpoint.id)).disabledReason, 'gone');
    clock.advance(3600_000);
    await sleep(700);
    assert.equal(receiver.received.length, 1, 'nothing is sent while disabled');

    const enabled = await patchEndpoint(server.baseUrl, await token(), endpoint.id, { enabled: true });
    assert.equal(enabled.status, 200);
    await receiver.waitFor(3);
    assert.deepEqual(receiver.received.map((message) => message.id), [first, first, second]);
  });

  it('disables the endpoint when the schedule runs out', async () => {
    await freshReceiver(() => ({ status: 503 }));
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    await sendTest(server.baseUrl, await token(), endpoint.id);
    for (let attempt = 1; attempt <= 4; attempt++) {
      await receiver.waitFor(attempt);
      await eventually(`attempt ${attempt} is logged`, 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === attempt);
      clock.advance(2 * 3600_000);
    }
    const log = await deliveries(server.baseUrl, await token(), endpoint.id);
    assert.deepEqual(log.map((delivery) => delivery.attempt), [4, 3, 2, 1], 'newest first: the first try and the three retries of 5s,5m,30m');
    assert.equal(log[0]?.nextAttemptAt, null);
    const disabled = await readEndpoint(server.baseUrl, await token(), endpoint.id);
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.disabledReason, 'retries_exhausted');
  });

  it('retries a delivery: a failing message at once, a delivered one again with its original id', async () => {
    await freshReceiver((index) => ({ status: index === 0 ? 500 : 200 }));
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    const messageId = await sendTest(server.baseUrl, await token(), endpoint.id);
    await eventually('the failure is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 1);
    const [failed] = await deliveries(server.baseUrl, await token(), endpoint.id);
    const retry = await postJson<{ messageId: string }>(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/deliveries/${failed?.id}/retry`, await token(), {});
    assert.equal(retry.status, 202, retry.text);
    assert.equal(retry.body.messageId, messageId);
    await receiver.waitFor(2);
    await eventually('the success is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 2);
    const [succeeded] = await deliveries(server.baseUrl, await token(), endpoint.id);
    assert.equal(succeeded?.attempt, 2);

    const again = await postJson(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/deliveries/${succeeded?.id}/retry`, await token(), {});
    assert.equal(again.status, 202);
    await receiver.waitFor(3);
    assert.deepEqual(receiver.received.map((message) => message.id), [messageId, messageId, messageId]);

    const unknown = await postJson(`${server.baseUrl}${WEBHOOKS}/${endpoint.id}/deliveries/whd_nothing/retry`, await token(), {});
    assert.equal(unknown.status, 404);
  });

  it('forgets delivery-log rows older than the change log\'s retention (30 days)', async () => {
    await freshReceiver();
    const endpoint = await createEndpoint(server.baseUrl, await token(), { url: receiver.url });
    await sendTest(server.baseUrl, await token(), endpoint.id);
    await eventually('the delivery is logged', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 1);
    clock.advance(29 * 86_400_000);
    await sleep(700);
    assert.equal((await deliveries(server.baseUrl, await token(), endpoint.id)).length, 1, 'kept within the retention');
    clock.advance(2 * 86_400_000);
    await eventually('the delivery is pruned', 5000, async () => (await deliveries(server.baseUrl, await token(), endpoint.id)).length === 0);
  });
});

describe('webhook retry timing, on the real clock', () => {
  let server: TestServer;
  let company: SignedInCompany;
  let receiver: Receiver;
  /**
   * The dispatcher polls once a minute here, not every 500 ms: a retry left to the poll would come up
   * to a minute late (past the receivers' waits), so one that comes within PROMPT_MS went out at its
   * time, and PROMPT_MS can cover the claim, signing and request on a loaded machine (against a
   * 500 ms poll, 250 ms of slack was both too little under load and too much to tell the two apart).
   */
  const POLL_MS = 60_000;
  const PROMPT_MS = 3000;
  /** From the attempt's start (`attemptedAt`) to its request, and from its end to its record: signing, a loaded event loop. */
  const RECORD_SLACK_MS = 500;

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_INSECURE: '1', WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s', WEBHOOK_TIMEOUT_MS: '2500', WEBHOOK_POLL_MS: String(POLL_MS) }, { inProcess: true });
    company = await signedInCompany(server.ctx);
  });
  after(async () => {
    await receiver?.close();
    await server.close();
  });

  it('waits each pause from the end of the failed attempt (a slow answer, a timeout) and retries at its time', async () => {
    // A 503 after 2 s, no answer within the 2.5 s timeout, two quick 503s, then success.
    receiver = await startReceiver((index) => (index === 0 ? { status: 503, delayMs: 2000 } : index === 1 ? { status: 200, delayMs: 3000 } : { status: index < 4 ? 503 : 204 }));
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: receiver.url });
    await sendTest(server.baseUrl, company.token, endpoint.id);
    const received = await receiver.waitFor(5, 20_000);
    await eventually('five attempts are logged', 5000, async () => (await deliveries(server.baseUrl, company.token, endpoint.id)).length === 5);
    const log = (await deliveries(server.baseUrl, company.token, endpoint.id)).reverse();
    for (let index = 0; index < 4; index++) {
      const failed = log[index];
      const next = received[index + 1];
      assert.ok(failed?.nextAttemptAt && next);
      const nextAttemptAt = Date.parse(failed.nextAttemptAt);
      // attemptedAt is the start; the attempt ended no sooner than durationMs later (1 ms for rounding).
      const pause = nextAttemptAt - (Date.parse(failed.attemptedAt) + failed.durationMs);
      assert.ok(pause >= 999 && pause <= 1100 + RECORD_SLACK_MS, `attempt ${index + 1}: the next is logged 1 s (plus jitter) after it ended, not after it started: ${pause} ms`);
      const answeredAt = received[index]?.answeredAt;
      if (index !== 1 && answeredAt) assert.ok(next.arrivedAt - answeredAt >= 1000, `attempt ${index + 1}: retried ${next.arrivedAt - answeredAt} ms after the answer`);
      assert.ok(next.arrivedAt >= nextAttemptAt && next.arrivedAt - nextAttemptAt <= PROMPT_MS, `attempt ${index + 2} came ${next.arrivedAt - nextAttemptAt} ms after its logged time`);
    }
    assert.equal(log[1]?.error, 'no answer within 2500 ms');
    assert.deepEqual(log.map((delivery) => delivery.statusCode), [503, null, 503, 503, 204]);
  });

  it('retries each of several waiting endpoints at its own time, not only the soonest', async () => {
    // Three endpoints fail together; their receivers ask for 1, 2 and 3 s (Retry-After), then succeed.
    const receivers = await Promise.all([1, 2, 3].map((seconds) => startReceiver((index) => (index === 0 ? { status: 503, headers: { 'retry-after': String(seconds) } } : { status: 204 }))));
    try {
      const endpoints = await Promise.all(receivers.map((waiting) => createEndpoint(server.baseUrl, company.token, { url: waiting.url })));
      await Promise.all(endpoints.map((endpoint) => sendTest(server.baseUrl, company.token, endpoint.id)));
      for (const [index, waiting] of receivers.entries()) {
        const [, retried] = await waiting.waitFor(2, 10_000);
        const [failed] = (await deliveries(server.baseUrl, company.token, endpoints[index]?.id ?? '')).reverse();
        assert.ok(retried && failed?.nextAttemptAt);
        const late = retried.arrivedAt - Date.parse(failed.nextAttemptAt);
        assert.ok(late >= 0 && late <= PROMPT_MS, `endpoint ${index + 1} was retried ${late} ms after its time`);
      }
    } finally {
      await Promise.all(receivers.map((waiting) => waiting.close()));
    }
  });
});

describe('webhook metrics', () => {
  let server: TestServer;
  let company: SignedInCompany;
  let receiver: Receiver;
  const METRICS_TOKEN = 'metrics-token-for-webhooks';

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_INSECURE: '1', METRICS_TOKEN }, { inProcess: true });
    company = await signedInCompany(server.ctx);
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  it('counts attempts by outcome and shows the backlog in GET /metrics', async () => {
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: receiver.url });
    await sendTest(server.baseUrl, company.token, endpoint.id);
    await receiver.waitFor(1);
    await eventually('the delivery is logged', 5000, async () => (await deliveries(server.baseUrl, company.token, endpoint.id)).length === 1);
    const text = await (await server.fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    assert.match(text, /wfs_webhook_attempt_duration_seconds_count\{outcome="success"\} 1/);
    assert.match(text, /wfs_webhook_backlog 0/);
    assert.match(text, /wfs_webhook_delivery_latency_seconds_count 0/);
  });
});

describe('webhook destinations at delivery, without WEBHOOK_ALLOW_INSECURE', () => {
  let server: TestServer;
  let company: SignedInCompany;
  let receiver: Receiver;

  before(async () => {
    server = await startTestServer({ WEBHOOK_RETRY_SCHEDULE: '1h' }, { inProcess: true });
    company = await signedInCompany(server.ctx);
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  it('refuses to connect when the endpoint\'s name now resolves to a loopback address (DNS rebinding)', async () => {
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: 'https://93.184.216.34/hooks' });
    // The name resolved to a public address at creation; now it points at this machine.
    const port = new URL(receiver.url).port;
    await server.ctx.db.updateTable('webhook_endpoints').set({ url: `https://localhost:${port}/hooks` }).where('id', '=', endpoint.id).execute();
    await sendTest(server.baseUrl, company.token, endpoint.id);
    await eventually('the refusal is logged', 5000, async () => (await deliveries(server.baseUrl, company.token, endpoint.id)).length === 1);
    const [refused] = await deliveries(server.baseUrl, company.token, endpoint.id);
    assert.equal(refused?.statusCode, null);
    assert.match(refused?.error ?? '', /destination refused: localhost does not resolve to a public address/);
    assert.equal(receiver.received.length, 0);
  });
});
