// An organisation's audit log as the console reads it (CONTRACT §6): every event of the organisation
// (logins, token events, operator and console changes) and nothing of another; newest first,
// filtered, keyset-paged; the filtered view as CSV without any secret; pages served by indexes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { useTestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { testDialect } from '../support/database.ts';
import { recordAudit, OPERATOR, type Actor } from '../../src/iam/audit.ts';
import { auditEventsCsv, auditEventsQuery, csvField, listAuditEvents, type AuditFilter } from '../../src/iam/audit-log.ts';
import { requestGrant } from '../../src/iam/grant-requests.ts';
import { resetUserSecret } from '../../src/iam/user-admin.ts';
import { rotateClientSecretWithOverlap } from '../../src/iam/client-admin.ts';
import type { Db } from '../../src/platform/db/database.ts';
import { loginAndExchange } from './helpers.ts';

const server = useTestServer({}, { inProcess: true });
const admin: Actor = { kind: 'console_user', id: 'cu_audit', email: 'audit@customer.example' };

async function everything(db: Db, organisationId: string, filter: AuditFilter = {}, limit = 7) {
  const seen = [];
  let cursor: string | undefined;
  do {
    const page = await listAuditEvents(db, organisationId, { ...filter, limit, ...(cursor ? { cursor } : {}) });
    assert.ok(page.data.length <= limit);
    seen.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return seen;
}

test('every kind of event carries its organisation; the log shows one organisation\'s, newest first, without secrets', async () => {
  const { db } = server.ctx;
  const mine = await provisionTenant(server.ctx, { name: 'Mine' });
  const theirs = await provisionTenant(server.ctx, { name: 'Theirs' });
  const tokens = await loginAndExchange(server, mine);
  const rotated = await rotateClientSecretWithOverlap(db, { clientId: mine.clientId, organisationId: mine.organisationId }, admin);
  const reset = await resetUserSecret(db, mine.organisationId, mine.userId, admin);
  await loginAndExchange(server, theirs);

  const events = await everything(db, mine.organisationId);
  const types = new Set(events.map((e) => e.type));
  for (const type of ['operator_change', 'login', 'token_issued', 'console_change']) assert.ok(types.has(type), `${type} is in the log`);
  assert.ok(events.every((e) => e.clientId === null || e.clientId === mine.clientId), 'nothing of another organisation');
  const instants = events.map((e) => Date.parse(e.at));
  assert.deepEqual(instants, [...instants].sort((a, b) => b - a), 'newest first');
  assert.deepEqual(events[0]?.actor, admin);
  assert.equal(events[0]?.detail, 'user_secret_reset');
  const text = JSON.stringify(events);
  for (const secret of [mine.clientSecret, mine.secret, rotated.clientSecret, reset.secret, tokens.id_token, tokens.refresh_token ?? '']) assert.ok(!text.includes(secret));

  const rows = await db.selectFrom('audit_log').select(['organisation_id', 'client_id']).where('client_id', 'in', [mine.clientId, theirs.clientId]).execute();
  assert.ok(rows.every((r) => r.organisation_id === (r.client_id === mine.clientId ? mine.organisationId : theirs.organisationId)), 'every row names its organisation');
});

test('filters by type, client, user and time; pages neither repeat nor skip; a bad cursor or filter is a 400', async () => {
  const { db } = server.ctx;
  const tenant = await provisionTenant(server.ctx);
  const second = await provisionTenant(server.ctx, { organisationId: tenant.organisationId });
  const start = Date.parse('2026-03-01T00:00:00Z');
  for (let i = 0; i < 30; i++) {
    const who = i % 2 === 0 ? tenant : second;
    await recordAudit(db, { event: i % 3 === 0 ? 'login' : 'token_issued', outcome: 'success', clientId: who.clientId, userId: who.userId }, start + Math.floor(i / 2) * 3_600_000 * 12);
  }
  const filtered = (filter: AuditFilter) => everything(db, tenant.organisationId, { from: '2026-03-01', to: '2026-03-31', ...filter });
  const all = await filtered({});
  assert.equal(all.length, 30);
  assert.equal(new Set(all.map((e) => e.id)).size, 30, 'no row twice across pages');
  assert.equal((await filtered({ types: ['login'] })).length, 10);
  assert.equal((await filtered({ types: ['login', 'token_issued'] })).length, 30);
  assert.equal((await filtered({ clientId: second.clientId })).length, 15);
  assert.equal((await filtered({ userId: tenant.userId, types: ['login'] })).length, 5);
  const firstDay = await filtered({ from: '2026-03-01', to: '2026-03-01' });
  assert.deepEqual(firstDay.map((e) => e.at.slice(0, 10)), Array(4).fill('2026-03-01'), 'a date `to` includes its day');
  assert.equal((await filtered({ from: '2026-03-01T12:00:00+00:00', to: '2026-03-02T00:00:00Z' })).length, 2, 'instants: from inclusive, to exclusive');

  await assert.rejects(listAuditEvents(db, tenant.organisationId, { cursor: 'bm90IGEgY3Vyc29y' }), { status: 400, code: 'invalid_cursor' });
  for (const bad of [{ from: '2026-02-30' }, { to: 'yesterday' }, { from: '2026-03-02', to: '2026-03-01' }, { limit: 0 }, { limit: 1001 }, { types: ['DROP TABLE'] }]) {
    await assert.rejects(listAuditEvents(db, tenant.organisationId, bad), { status: 400, code: 'validation_failed' }, JSON.stringify(bad));
  }
  assert.deepEqual((await listAuditEvents(db, 'org_someone_else', { clientId: tenant.clientId })).data, [], 'another organisation sees none of it, even naming the client');
});

test('the CSV export is the filtered view, escaped, formulas defused, with no secret', async () => {
  const { db } = server.ctx;
  const tenant = await provisionTenant(server.ctx);
  await requestGrant(db, { clientId: tenant.clientId, grant: 'sso', reason: '=HYPERLINK("http://evil.example"), "quoted", two\nlines', organisationId: tenant.organisationId }, admin);
  // A millisecond later than the request at the latest: newest first is then this order, even on a fast machine.
  await recordAudit(db, { event: 'login', outcome: 'failure', clientId: tenant.clientId, address: '203.0.113.9', detail: 'wrong_secret' }, Date.now() + 1);
  let csv = '';
  for await (const chunk of auditEventsCsv(db, tenant.organisationId, { types: ['console_change', 'login'] })) csv += chunk;
  const lines = csv.split('\r\n');
  assert.equal(lines[0], 'at,type,outcome,detail,actor_kind,actor_id,actor_email,client_id,user_id,address,context');
  assert.match(lines[1] ?? '', /^\d{4}-\d{2}-\d{2}T[^,]+,login,failure,wrong_secret,,,,cli_[^,]+,,203\.0\.113\.9,$/);
  assert.match(lines[2] ?? '', /,console_change,success,grant_requested:sso,console_user,cu_audit,audit@customer\.example,/);
  assert.ok(csv.includes('\\""quoted\\""'), 'the reason, JSON in the context field, with its quotes doubled');
  assert.equal(lines.length, 4, 'header, two events, the final line break: a typed line break stays escaped inside its field');
  const samples = ['=1+1', '+1', '-1', '@SUM(A1)', 'a,b', 'say "hi"', 'plain', null];
  assert.deepEqual(samples.map(csvField), ["'=1+1", "'+1", "'-1", "'@SUM(A1)", '"a,b"', '"say ""hi"""', 'plain', ''], 'formulas defused, RFC 4180 quoting');
  assert.ok(!csv.includes(tenant.clientSecret) && !csv.includes(tenant.secret));
  const operatorOnly = [];
  for await (const chunk of auditEventsCsv(db, tenant.organisationId, { types: ['operator_change'] })) operatorOnly.push(chunk);
  assert.equal(operatorOnly.join('').trim().split('\r\n').length, 5, 'header, organisation_created, company_created, client_created, user_created');
  assert.equal((await listAuditEvents(db, tenant.organisationId, { types: ['operator_change'] })).data[0]?.actor?.kind, OPERATOR.kind);
  assert.throws(() => auditEventsCsv(db, tenant.organisationId, { from: 'yesterday' }), { status: 400 }, 'a bad filter fails before any byte is streamed');
});

/** The query plan's lines; on PostgreSQL with sequential scans priced out. */
async function plan(db: Db, compiled: CompiledQuery): Promise<string> {
  return db.transaction().execute(async (trx) => {
    if (testDialect === 'postgres') {
      await sql`set local enable_seqscan = off`.execute(trx);
      const result = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      return result.rows.map((r) => r['QUERY PLAN']).join('\n');
    }
    const result = await trx.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
    return result.rows.map((r) => r.detail).join('\n');
  });
}

test('each filtered page reads through an audit_log index in its sort order, never the whole table or a sort of it', async () => {
  const { db } = server.ctx;
  const tenant = await provisionTenant(server.ctx);
  if (testDialect === 'postgres') await sql`analyze audit_log`.execute(db);
  const cursor = Buffer.from(JSON.stringify([Date.now(), 'aud_x'])).toString('base64url');
  const filters: AuditFilter[] = [{}, { types: ['login'] }, { clientId: tenant.clientId }, { userId: tenant.userId }, { from: '2026-01-01', to: '2026-12-31' }, { types: ['login'], clientId: tenant.clientId }];
  for (const filter of filters) {
    const text = await plan(db, auditEventsQuery(db, tenant.organisationId, { ...filter, cursor, limit: 100 }).query.compile());
    assert.match(text, /audit_log_(organisation_at|organisation_event_at|client_at|user_at)/, `${JSON.stringify(filter)}:\n${text}`);
    assert.doesNotMatch(text, /SCAN audit_log(?! USING)|Seq Scan on audit_log/, `${JSON.stringify(filter)}:\n${text}`);
    if (testDialect === 'sqlite' && !filter.types) assert.doesNotMatch(text, /USE TEMP B-TREE FOR ORDER BY/, `${JSON.stringify(filter)} sorted by the index:\n${text}`);
  }
});
