// A replay of a period (POST …/webhooks/{id}/replay, src/webhooks/messages.ts) at its largest: the
// 10,000 changes one replay may queue are read and queued in pages with turns of the event loop
// between them (no request holds the loop over 50 ms, measured), in seq order; a second replay while
// they are still queued is refused (409) instead of storing another copy of each; a period holding
// more than the limit is refused (400) before anything is queued.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { recordChanges } from '../../src/changes/change-log.ts';
import { REPLAY_LIMIT } from '../../src/webhooks/messages.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { signedInCompany, type SignedInCompany } from '../support/company.ts';
import { postJson } from '../support/http.ts';
import { HOLD_LIMIT_MS, measureHold } from '../support/event-loop.ts';
import type { ProblemBody } from '../support/http.ts';
import { WEBHOOKS, createEndpoint, patchEndpoint } from './helpers.ts';

const WHOLE_TIME = { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' };

/** `count` shift changes, as an import of that many shifts records them (5,000 a transaction). */
async function recordShiftChanges(server: TestServer, companyId: string, count: number, first = 0): Promise<void> {
  for (let start = first; start < first + count; start += 5000) {
    const size = Math.min(5000, first + count - start);
    await server.ctx.db.transaction().execute((trx) => recordChanges(trx, companyId, Array.from({ length: size }, (_, k) => ({
      resourceType: 'shift' as const, action: 'created' as const, resourceId: `sft_${start + k}`,
      data: { id: `sft_${start + k}`, userId: 'usr_1', departmentId: 'dep_1', positionId: 'pos_1', start: '2026-11-20T08:00:00+01:00', end: '2026-11-20T16:00:00+01:00', breakMinutes: 30, note: 'x'.repeat(100) },
    })), { at: Date.now(), timezone: 'Europe/Amsterdam' }));
  }
}

describe('webhook replay of a large period', () => {
  let server: TestServer;
  let company: SignedInCompany;

  /** Endpoints that deliver nothing meanwhile (disabled), so what a replay queued stays queued. */
  let quiet: string;
  let quieter: string;

  /** An endpoint made before the changes, which are its own (a replay sends nothing from before an endpoint). */
  async function quietEndpoint(): Promise<string> {
    const endpoint = await createEndpoint(server.baseUrl, company.token, { url: 'http://127.0.0.1:9/hook' });
    await patchEndpoint(server.baseUrl, company.token, endpoint.id, { enabled: false });
    return endpoint.id;
  }

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_INSECURE: '1' }, { inProcess: true });
    company = await signedInCompany(server.ctx);
    quiet = await quietEndpoint();
    quieter = await quietEndpoint();
    await recordShiftChanges(server, company.tenant.companyId, REPLAY_LIMIT);
  });
  after(() => server.close());

  const replay = (id: string) => postJson<{ queued: number } & ProblemBody>(`${server.baseUrl}${WEBHOOKS}/${id}/replay`, company.token, WHOLE_TIME);

  async function queuedSeqs(id: string): Promise<number[]> {
    const rows = await server.ctx.db.selectFrom('webhook_messages').select('seq').where('endpoint_id', '=', id).orderBy('queued_at').orderBy('ordinal').orderBy('id').execute();
    return rows.map((row) => Number(row.seq));
  }

  it(`queues ${REPLAY_LIMIT} changes in seq order without holding the event loop over ${HOLD_LIMIT_MS} ms, and refuses a second replay while they are queued`, async () => {
    const id = quiet;
    let queued = 0;
    const hold = await measureHold(async () => {
      const response = await replay(id);
      assert.equal(response.status, 202, response.text);
      queued = response.body.queued;
      return response.status;
    });
    assert.equal(queued, REPLAY_LIMIT);
    assert.ok(hold.maxMs < HOLD_LIMIT_MS, `the replay held the event loop ${hold.maxMs.toFixed(0)} ms (wall clock ${hold.wallMs.toFixed(0)} ms)`);
    const seqs = await queuedSeqs(id);
    assert.equal(seqs.length, REPLAY_LIMIT);
    assert.ok(seqs.every((seq, i) => i === 0 || seq > (seqs[i - 1] ?? 0)), 'queued in seq order, each once');

    const again = await replay(id);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.code, 'replay_in_progress');
    assert.equal((await queuedSeqs(id)).length, REPLAY_LIMIT, 'no second copy stored');

    // Once they are gone (delivered), the endpoint may be replayed again.
    await server.ctx.db.deleteFrom('webhook_messages').where('endpoint_id', '=', id).execute();
    assert.equal((await replay(id)).status, 202);
  });

  it(`refuses a period holding more than ${REPLAY_LIMIT} changes, queueing nothing`, async () => {
    await recordShiftChanges(server, company.tenant.companyId, 1, REPLAY_LIMIT);
    const id = quieter;
    const response = await replay(id);
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.code, 'replay_too_large');
    assert.deepEqual(await queuedSeqs(id), []);
  });
});
