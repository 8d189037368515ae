// GET /api/v1/company/changes and /changes/head (CONTRACT §7) over real HTTP: paging in seq order,
// cursors always given, bound to the company and the types filter, the types filter itself, long
// polls woken by a commit, and 410 once retention removed a change a cursor still needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { useCompanyServer, signedInCompany, startCompanyServer } from '../support/company.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { baseDocument, shift, user } from '../company/fixtures.ts';
import { getJson, postJson, type ProblemBody } from '../support/http.ts';
import { addDepartment } from '../timeclock/fixtures.ts';
import { ManualClock } from '../../src/platform/clock.ts';

interface Change {
  seq: number;
  id: string;
  type: string;
  resourceId: string;
  deleted: boolean;
  data: unknown;
}
interface ChangesPage {
  data: Change[];
  nextCursor: string;
  hasMore: boolean;
}

const company = useCompanyServer({ name: 'Delta', inProcess: true });

function changes(query = '', token = company.token, baseUrl = company.server.baseUrl) {
  return getJson<ChangesPage & ProblemBody>(`${baseUrl}/api/v1/company/changes${query ? `?${query}` : ''}`, token);
}

async function head(token = company.token, baseUrl = company.server.baseUrl): Promise<string> {
  const response = await getJson<{ cursor: string }>(`${baseUrl}/api/v1/company/changes/head`, token);
  assert.equal(response.status, 200);
  return response.body.cursor;
}

/** Follows the cursor until an empty page; returns what it saw and the cursor to resume from. */
async function follow(cursor: string | undefined, extra = 'limit=3', token = company.token): Promise<{ seen: Change[]; cursor: string }> {
  const seen: Change[] = [];
  for (;;) {
    const response = await changes([extra, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&'), token);
    assert.equal(response.status, 200, response.text);
    assert.equal(typeof response.body.nextCursor, 'string');
    cursor = response.body.nextCursor;
    seen.push(...response.body.data);
    if (response.body.data.length === 0) {
      assert.equal(response.body.hasMore, false, 'an empty page has nothing more');
      return { seen, cursor };
    }
  }
}

async function load(refs: string[]): Promise<void> {
  const doc = baseDocument();
  doc.users = refs.map((ref) => user(ref));
  await importCompanyData(company.server.ctx.db, company.tenant.companyId, doc);
}

test('an empty log answers an empty page with a cursor; following it later sees every change once, in seq order, page by page', async () => {
  const first = await changes();
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.data, []);
  assert.equal(first.body.hasMore, false);
  assert.equal(typeof first.body.nextCursor, 'string');

  await load(['ann', 'bob']);
  const { seen, cursor } = await follow(first.body.nextCursor);
  assert.equal(seen.length, 2 + 2 + 4 + 1 + 2);
  assert.deepEqual(seen.map((c) => c.seq), seen.map((c) => c.seq).toSorted((a, b) => a - b));
  assert.equal(new Set(seen.map((c) => c.id)).size, seen.length);

  // Without a cursor: from the oldest change kept.
  assert.deepEqual((await follow(undefined, 'limit=1000')).seen, seen);

  await load(['ann', 'bob', 'cem']);
  const again = await follow(cursor);
  assert.deepEqual(again.seen.map((c) => [c.type, (c.data as { lastName: string }).lastName]), [['user.created', 'Last cem']]);
});

test('a full page says hasMore; the head cursor skips everything before it', async () => {
  const page = await changes('limit=2');
  assert.equal(page.body.data.length, 2);
  assert.equal(page.body.hasMore, true);

  const cursor = await head();
  assert.deepEqual((await follow(cursor)).seen, []);
  await load(['ann', 'bob', 'cem', 'dan']);
  assert.deepEqual((await follow(cursor)).seen.map((c) => c.type), ['user.created']);
});

test('types keep only the named change types; an unknown type is 400; a filtered cursor serves only its filter', async () => {
  const users = await follow(undefined, 'types=user.created,user.deleted&limit=2');
  assert.ok(users.seen.length >= 4);
  assert.ok(users.seen.every((c) => c.type === 'user.created'));

  const unknown = await changes('types=user.created,user.renamed');
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'validation_failed');
  assert.match(unknown.body.detail, /user\.renamed/);
  assert.equal(unknown.body.errors?.[0]?.path, '/querystring/types');

  const other = await changes(`types=shift.created&cursor=${encodeURIComponent(users.cursor)}`);
  assert.equal(other.status, 400);
  assert.equal(other.body.code, 'invalid_cursor');
  // An unfiltered cursor serves any filter.
  assert.equal((await changes(`types=shift.created&cursor=${encodeURIComponent(await head())}`)).status, 200);
});

test('unknown query parameters, bad limits and waits are 400', async () => {
  for (const query of ['from=2026-01-01', 'limit=0', 'limit=1001', 'wait=31', 'wait=-1', 'wait=abc']) {
    const response = await changes(query);
    assert.equal(response.status, 400, query);
    assert.equal(response.body.code, 'validation_failed', query);
  }
  const head = await getJson<ProblemBody>(`${company.server.baseUrl}/api/v1/company/changes/head?cursor=x`, company.token);
  assert.equal(head.status, 400);
});

// A review saw "must be integer" for limit=0 here: its script sent `limit=3&limit=0`, a repeated
// parameter, which collections refuse in the same words.
test('limit is refused in the words collections use (CONTRACT §7: "limit as for collections")', async () => {
  for (const [query, words] of [['limit=0', 'must be >= 1'], ['limit=1001', 'must be <= 1000'], ['limit=3&limit=0', 'must be integer']] as const) {
    const collection = await getJson<ProblemBody>(`${company.server.baseUrl}/api/v1/company/users?${query}`, company.token);
    const response = await changes(query);
    assert.equal(response.status, 400, query);
    assert.equal(response.body.detail, `Query parameter limit ${words}.`, query);
    assert.equal(response.body.detail, collection.body.detail, query);
    assert.deepEqual(response.body.errors, collection.body.errors, query);
  }
});

test('a tampered cursor, or another company\'s, is 400; another company never sees these changes', async () => {
  const cursor = await head();
  const [payload = '', mac = ''] = cursor.split('.');
  // The same fingerprint and signature, another position: the signature no longer matches.
  const [fingerprint] = JSON.parse(Buffer.from(payload, 'base64url').toString()) as [string, unknown];
  const forged = `${Buffer.from(JSON.stringify([fingerprint, [0, '']])).toString('base64url')}.${mac}`;
  for (const bad of [forged, `${cursor}x`, 'not-a-cursor']) {
    const response = await changes(`cursor=${encodeURIComponent(bad)}`);
    assert.equal(response.status, 400, bad);
    assert.equal(response.body.code, 'invalid_cursor');
  }
  const stranger = await signedInCompany(company.server.ctx, { name: 'Stranger' });
  const transplanted = await changes(`cursor=${encodeURIComponent(cursor)}`, stranger.token);
  assert.equal(transplanted.status, 400);
  assert.equal(transplanted.body.code, 'invalid_cursor');
  assert.deepEqual((await follow(undefined, 'limit=1000', stranger.token)).seen, []);
  await importCompanyData(company.server.ctx.db, stranger.tenant.companyId, { ...baseDocument(), users: [user('spy')] });
  const mine = (await follow(undefined, 'limit=1000')).seen;
  assert.ok(!mine.some((c) => (c.data as { lastName?: string } | null)?.lastName === 'Last spy'));
});

test('a long poll answers within a second of the commit of a change, and an idle one when its time is up', async () => {
  const cursor = await head();
  const started = performance.now();
  const idle = await changes(`wait=1&cursor=${encodeURIComponent(cursor)}`);
  const idleMs = performance.now() - started;
  assert.deepEqual(idle.body.data, []);
  assert.ok(idleMs >= 950 && idleMs < 2000, `held ${idleMs} ms`);

  const waiting = changes(`wait=20&cursor=${encodeURIComponent(cursor)}`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const doc = baseDocument();
  doc.shifts = [shift('late', '2026-06-01')];
  await importCompanyData(company.server.ctx.db, company.tenant.companyId, doc);
  const committed = performance.now();
  const woken = await waiting;
  const latency = performance.now() - committed;
  assert.deepEqual(woken.body.data.map((c) => c.type), ['shift.created']);
  assert.ok(latency < 1000, `answered ${latency} ms after the commit`);
});

test('a cursor that a pruned change would still have had to return is 410 cursor_expired; reading again from the head works', async () => {
  const clock = new ManualClock();
  const server = await startCompanyServer({ name: 'Retention', env: { CHANGES_RETENTION_SECONDS: '3600' }, clock, inProcess: true });
  try {
    const read = (query: string) => changes(query, server.token, server.server.baseUrl);
    const before = (await read('')).body.nextCursor;
    await importCompanyData(server.server.ctx.db, server.tenant.companyId, { ...baseDocument(), users: [user('old')] }, clock.now());
    const middle = (await read(`limit=1000&cursor=${encodeURIComponent(before)}`)).body.nextCursor;
    clock.advance(3_601_000);
    await importCompanyData(server.server.ctx.db, server.tenant.companyId, { users: [user('new')] }, clock.now());
    assert.ok((await server.server.ctx.changeRetention.pruneNow()) > 0);

    const expired = await read(`cursor=${encodeURIComponent(before)}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.body.code, 'cursor_expired');
    // A cursor past the pruned changes still reads on; so does a read without a cursor.
    const after = await read(`cursor=${encodeURIComponent(middle)}`);
    assert.deepEqual(after.body.data.map((c) => c.type), ['user.created']);
    assert.deepEqual((await read('')).body.data.map((c) => c.type), ['user.created']);
    const fresh = await getJson<{ cursor: string }>(`${server.server.baseUrl}/api/v1/company/changes/head`, server.token);
    assert.deepEqual((await read(`cursor=${encodeURIComponent(fresh.body.cursor)}`)).body.data, []);
  } finally {
    await server.server.close();
  }
});

test('pruning holds back only the cursors whose types filter selects a pruned change (each type has its own horizon)', async () => {
  const clock = new ManualClock();
  // Retention shorter than the token's lifetime: the clock moves past it twice.
  const server = await startCompanyServer({ name: 'Horizons', env: { CHANGES_RETENTION_SECONDS: '600' }, clock, inProcess: true });
  try {
    const { db } = server.server.ctx;
    const read = (cursor: string, types = '') => changes(`cursor=${encodeURIComponent(cursor)}${types ? `&types=${types}` : ''}`, server.token, server.server.baseUrl);
    const headNow = () => head(server.token, server.server.baseUrl);
    const prune = async () => assert.ok((await server.server.ctx.changeRetention.pruneNow()) > 0, 'pruned something');

    // The review's case: one revenue item, pruned; a shift filter from before it never needed it.
    const departmentId = await addDepartment(db, server.tenant.companyId, 'Bar');
    const beforeRevenue = await headNow();
    const shiftsOnly = (await read(beforeRevenue, 'shift.created')).body.nextCursor;
    const posted = await postJson(`${server.server.baseUrl}/api/v1/company/revenue`, server.token, { items: [{ departmentId, date: '2026-11-20', kind: 'realised', amount: 10 }] });
    assert.equal(posted.status, 200, posted.text);
    clock.advance(601_000);
    await prune();
    for (const cursor of [beforeRevenue, shiftsOnly]) {
      const page = await read(cursor, 'shift.created');
      assert.equal(page.status, 200, page.text);
      assert.deepEqual(page.body.data, []);
    }
    for (const types of ['revenue_item.created', 'revenue_item.created,shift.created', '']) {
      const page = await read(beforeRevenue, types);
      assert.equal(page.status, 410, `types=${types}: ${page.text}`);
      assert.equal(page.body.code, 'cursor_expired');
    }

    // A pruned shift holds back a cursor filtered to shifts (one bound to that filter too), and an unfiltered one.
    const beforeShift = await headNow();
    const boundToShifts = (await read(beforeShift, 'shift.created')).body.nextCursor;
    await importCompanyData(db, server.tenant.companyId, { ...baseDocument(), shifts: [shift('pruned', '2026-06-01')] }, clock.now());
    clock.advance(601_000);
    await prune();
    for (const [cursor, types] of [[beforeShift, 'shift.created'], [boundToShifts, 'shift.created'], [beforeShift, 'shift.deleted,shift.created'], [beforeShift, '']] as const) {
      const page = await read(cursor, types);
      assert.equal(page.status, 410, `types=${types}: ${page.text}`);
      assert.equal(page.body.code, 'cursor_expired');
    }
    const untouched = await read(beforeShift, 'user.created,timeclock_event.created');
    assert.equal(untouched.status, 200, untouched.text);
    assert.deepEqual(untouched.body.data, []);
  } finally {
    await server.server.close();
  }
});

test('a server shutting down answers its waiting long polls at once instead of holding the shutdown', async () => {
  const closing = await startCompanyServer({ name: 'Closing' });
  // Closed once the server has the request, not only after a fixed sleep: one that has not arrived by
  // then (a loaded machine) meets a closed port, or a 503, instead of a waiting long poll. The sleep
  // after lets it reach its wait; one closed before it waits is answered at once as well.
  const arrived = once(closing.server.app.server, 'request');
  const waiting = changes('wait=30', closing.token, closing.server.baseUrl);
  await arrived;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = performance.now();
  await closing.server.close();
  assert.ok(performance.now() - started < 5000, 'closed without waiting 30 s');
  const answer = await waiting;
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body.data, []);
});
