// The console's audit log page (CONTRACT §6) over plain HTTP: every console action is there with the
// console user as actor; filters by event type, client, user and dates; pages; the CSV download of
// the filtered view; nothing of another organisation; a viewer reads it too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock.ts';
import { recordAudit } from '../../src/iam/audit.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { enrolPerson, signIn, testId, type ConsolePerson } from '../support/console.ts';
import { loginForCode } from '../iam/helpers.ts';

const clock = new ManualClock();
let server: TestServer;
let home: Tenant;
let admin: ConsolePerson;
let clientId: string;
let userId: string;

before(async () => {
  server = await startTestServer({}, { clock, inProcess: true });
  home = await provisionTenant(server.ctx, { name: 'Audited' });
  admin = await enrolPerson(server, clock, home.organisationId);
  const company = `/console/companies/${home.companyId}`;
  const created = await admin.agent.submit(company, `${company}/clients`, { name: 'Audited app', redirectUris: 'https://audited.example/cb' });
  clientId = testId(created.html, 'client-id');
  const users = `/console/clients/${clientId}/users`;
  userId = testId((await admin.agent.submit(users, users, { email: 'audited@customer.example' })).html, 'user-id');
  await admin.agent.submit(users, `/console/users/${userId}/reset-secret`);
  await admin.agent.submit(`/console/clients/${clientId}`, `/console/clients/${clientId}/disable`);
  await admin.agent.submit('/console/console-users', '/console/console-users', { email: 'colleague@customer.example', role: 'viewer' });
  await loginForCode(server, home);
});
after(() => server.close());

/** The rows of the page's table as [event, outcome, actor, client, user] cells. */
function rows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) => [...(row ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell]) => (cell ?? '').replace(/<[^>]+>/g, '').trim()));
}

test('every console action is in the log with the console user as actor, newest first', async () => {
  const page = await admin.agent.get('/console/audit');
  assert.equal(page.status, 200);
  const table = rows(page.html);
  const byAdmin = table.filter((r) => r[3] === admin.email).map((r) => `${r[1]}:${r[7]}`);
  const expected = ['console_invitation_accepted:', ...['client_created', 'user_created', 'user_secret_reset', 'client_disabled', 'console_user_invited'].map((d) => `console_change:${d}`)];
  for (const entry of expected) assert.ok(byAdmin.includes(entry), `${entry} in ${byAdmin.join(', ')}`);
  assert.ok(table.some((r) => r[1] === 'login' && r[2] === 'success'), 'API User logins are there too');
  const times = [...page.html.matchAll(/<time datetime="([^"]+)"/g)].map(([, t]) => Date.parse(t ?? ''));
  assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
});

test('filters: event type, client, user and a date range', async () => {
  const changes = rows((await admin.agent.get('/console/audit?type=console_change')).html);
  assert.ok(changes.length >= 5);
  assert.ok(changes.every((r) => r[1] === 'console_change'));
  const ofClient = rows((await admin.agent.get(`/console/audit?clientId=${clientId}`)).html);
  assert.ok(ofClient.length >= 4 && ofClient.every((r) => r[4] === 'Audited app'), JSON.stringify(ofClient));
  const ofUser = rows((await admin.agent.get(`/console/audit?userId=${userId}`)).html);
  assert.deepEqual(ofUser.map((r) => r[7]).sort(), ['user_created', 'user_secret_reset']);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  assert.equal(rows((await admin.agent.get(`/console/audit?from=${tomorrow}`)).html).length, 0);
  const today = new Date().toISOString().slice(0, 10);
  assert.ok(rows((await admin.agent.get(`/console/audit?from=${today}&to=${today}`)).html).length > 5);
  const bad = await admin.agent.get('/console/audit?from=yesterday');
  assert.equal(bad.status, 400);
  assert.match(bad.html, /role="alert"/);
});

test('pages of 50 follow one another without gap or repeat', async () => {
  const base = Date.now() - 3_600_000;
  for (let i = 0; i < 120; i++) await recordAudit(server.ctx.db, { event: 'token_issued', outcome: 'success', clientId: home.clientId, organisationId: home.organisationId }, base + i);
  const seen: string[] = [];
  let path: string | undefined = '/console/audit?type=token_issued';
  while (path) {
    const page = await admin.agent.get(path);
    const times = [...page.html.matchAll(/<time datetime="([^"]+)"/g)].map(([, t]) => t ?? '');
    assert.ok(times.length <= 50);
    seen.push(...times);
    path = /<a href="([^"]+)">Older events<\/a>/.exec(page.html)?.[1]?.replace(/&amp;/g, '&');
  }
  assert.equal(seen.length, new Set(seen).size, 'no repeat');
  assert.ok(seen.length >= 120, 'no gap: every event of the type is on some page');
});

test('the CSV download holds the filtered view', async () => {
  const csv = await admin.agent.get(`/console/audit.csv?type=console_change&clientId=${clientId}`);
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  assert.match(csv.headers.get('content-disposition') ?? '', /attachment; filename="audit-log.csv"/);
  const lines = csv.html.trim().split('\r\n');
  assert.equal(lines[0], 'at,type,outcome,detail,actor_kind,actor_id,actor_email,client_id,user_id,address,context');
  assert.ok(lines.length > 2);
  for (const line of lines.slice(1)) {
    assert.match(line, /^[^,]+,console_change,/);
    assert.ok(line.includes(clientId) && line.includes(admin.email), line);
  }
  assert.equal((await admin.agent.get('/console/audit.csv?to=not-a-date')).status, 400);
});

test('another organisation\'s events never show: its client or user id in a filter is 404; a viewer reads the log', async () => {
  const other = await provisionTenant(server.ctx, { name: 'Other audited' });
  await loginForCode(server, other);
  const { agent } = await signIn(server, clock, admin);
  for (const path of [`/console/audit?clientId=${other.clientId}`, `/console/audit?userId=${other.userId}`, `/console/audit.csv?clientId=${other.clientId}`]) {
    const answer = await agent.get(path);
    assert.equal(answer.status, 404, path);
    assert.ok(!answer.html.includes('Other audited'), path);
  }
  assert.ok(!(await agent.get('/console/audit.csv')).html.includes(other.clientId));
  const viewer = await enrolPerson(server, clock, home.organisationId, 'viewer');
  assert.equal((await viewer.agent.get('/console/audit')).status, 200);
  assert.equal((await viewer.agent.get('/console/audit.csv')).status, 200);
});
