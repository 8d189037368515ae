// Liveness and readiness (contract: addresses and configuration): GET /healthz answers 200 while the process serves; GET /readyz
// answers 200 while the database answers, else 503 naming what is down. Both are unauthenticated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, useTestServer } from '../support/server.ts';
import { fetchAny } from '../support/in-process.ts';

const server = useTestServer({}, { inProcess: true });

async function getJson(url: string): Promise<{ status: number; body: unknown; type: string | null }> {
  const response = await fetchAny(url);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
}

test('GET /healthz answers 200 {status: "ok"} without credentials', async () => {
  const health = await getJson(`${server.baseUrl}/healthz`);
  assert.equal(health.status, 200);
  assert.match(health.type ?? '', /^application\/json/);
  assert.deepEqual(health.body, { status: 'ok' });
});

test('GET /readyz answers 200 with the database check ok while the database answers', async () => {
  const ready = await getJson(`${server.baseUrl}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body, { status: 'ok', checks: { database: 'ok' } });
});

test('with its database closed, the process is live (/healthz 200) but not ready (/readyz 503, database down)', async () => {
  const own = await startTestServer({}, { inProcess: true });
  try {
    await own.ctx.db.destroy();
    const health = await getJson(`${own.baseUrl}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    const ready = await getJson(`${own.baseUrl}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body, { status: 'unavailable', checks: { database: 'down' } });
  } finally {
    // close() destroys the database once more, which both dialects allow.
    await own.close();
  }
});
