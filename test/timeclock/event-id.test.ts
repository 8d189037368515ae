// One canonical eventId (issue 11): a UUID is stored lower-case and bare. `urn:uuid:…` and upper
// case were stored as ids of their own, so a terminal resending the same punch in another spelling
// made a second event. Both spellings are accepted and normalised: the answer, the read-back and
// idempotency all use the canonical form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { useCompanyServer } from '../support/company.ts';
import { addEmployee } from './fixtures.ts';
import { postJson, type ProblemBody } from '../support/http.ts';

const company = useCompanyServer({ name: 'Mill', inProcess: true });
const url = () => `${company.server.baseUrl}/api/v1/timeclock/events`;

test('urn:uuid: and upper-case spellings of one eventId are one event, stored as the lower-case bare UUID', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const id = randomUUID();
  const punch = { badgeId: person.badgeId, type: 'clock_in', occurredAt: new Date(Date.now() - 60_000).toISOString(), source: 'terminal' };
  const first = await postJson<{ eventId: string; sequence: number; id: string }>(url(), company.token, { ...punch, eventId: `urn:uuid:${id.toUpperCase()}` });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.body.eventId, id);
  for (const spelling of [id, id.toUpperCase(), `urn:uuid:${id}`, `URN:UUID:${id}`]) {
    const again = await postJson<{ eventId: string; id: string }>(url(), company.token, { ...punch, eventId: spelling });
    assert.equal(again.status, 200, `${spelling}: ${again.text}`);
    assert.equal(again.body.id, first.body.id, `${spelling} is the same event`);
  }
  const stored = await company.server.ctx.db.selectFrom('timeclock_events').select('event_id').execute();
  assert.deepEqual(stored.map((row) => row.event_id), [id]);
});

test('anything else than a UUID is 400 validation_failed', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  for (const eventId of ['not-a-uuid', `{${randomUUID()}}`, `urn:uuid:`, randomUUID().replace(/-/g, '')]) {
    const refused = await postJson<ProblemBody>(url(), company.token, { eventId, badgeId: person.badgeId, type: 'clock_in', occurredAt: new Date().toISOString(), source: 'terminal' });
    assert.equal(refused.status, 400, eventId);
    assert.equal(refused.body.code, 'validation_failed');
  }
});
