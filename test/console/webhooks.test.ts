// The console's webhook pages over plain HTTP (CONTRACT §6, §7), delivering to a real receiver on
// 127.0.0.1 that verifies with the `standardwebhooks` package: an endpoint added on the page signs
// with the secret shown once, a rotation signs with both secrets, disabling holds messages until
// enabling, a failed delivery is retried from the log, a period is replayed with the original ids,
// the log pages newest first; bad URLs (and, without WEBHOOK_ALLOW_INSECURE, private destinations)
// come back as form errors; a viewer, a form without its CSRF token and another organisation's ids
// are refused; every change is audited with the console user as actor.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock.ts';
import { importCompanyData } from '../../src/company/import.ts';
import { registerEndpoint, sendTestMessage } from '../../src/webhooks/operations.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant, type Tenant } from '../support/tenants.ts';
import { enrolPerson, signIn, testId, type ConsoleAgent, type ConsolePerson, type PageResponse } from '../support/console.ts';
import { unescapeHtml } from '../support/login.ts';
import { eventually } from '../multi-instance/client.ts';
import { useReceivers, verified } from '../webhooks/receiver.ts';

const clock = new ManualClock();
let server: TestServer;
let home: Tenant;
let admin: ConsolePerson;
let agent: ConsoleAgent;
const receiver = useReceivers();

before(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_INSECURE: '1' }, { clock, inProcess: true });
  home = await provisionTenant(server.ctx, { name: 'Console Webhooks' });
  admin = await enrolPerson(server, clock, home.organisationId);
  agent = admin.agent;
});
after(() => server.close());

const listPage = () => `/console/companies/${home.companyId}/webhooks`;
const endpointPage = (endpointId: string) => `${listPage()}/${endpointId}`;

/** Adds an endpoint on the list page; answers its id (from the link on the page shown) and the secret shown once. */
async function addEndpoint(url: string, fields: Record<string, string> = {}): Promise<{ endpointId: string; secret: string; html: string }> {
  const created = await agent.submit(listPage(), listPage(), { url, ...fields });
  assert.equal(created.status, 200, created.html);
  const endpointId = /\/webhooks\/(whe_[^"]+)">Go to the endpoint/.exec(created.html)?.[1] ?? '';
  assert.ok(endpointId, 'the page links to the new endpoint');
  return { endpointId, secret: testId(created.html, 'webhook-secret'), html: created.html };
}

/**
 * Posts a form of the endpoint's page: the answer sends the browser back to the page (303), which
 * then says what was done; reloading it sends nothing again. Answers that page.
 */
async function act(endpointId: string, action: string, fields: Record<string, string> = {}): Promise<PageResponse> {
  const answer = await agent.submit(endpointPage(endpointId), `${endpointPage(endpointId)}${action}`, fields);
  assert.equal(answer.status, 303, answer.html);
  assert.ok(answer.location?.startsWith(`${endpointPage(endpointId)}?done=`), answer.location ?? '');
  const page = await agent.get(answer.location ?? '');
  assert.equal(page.status, 200);
  return page;
}

/** Rows of the delivery log as the page shows them: [status, response code]. */
function logRows(html: string): [string, string][] {
  return [...html.matchAll(/data-testid="delivery-status">([^<]*)<[\s\S]*?data-testid="delivery-code">([^<]*)</g)].map((m) => [m[1] ?? '', m[2] ?? '']);
}

async function logOf(endpointId: string, rows: number): Promise<[string, string][]> {
  let shown: [string, string][] = [];
  await eventually(`${rows} attempts in the log`, 5000, async () => {
    shown = logRows((await agent.get(endpointPage(endpointId))).html);
    return shown.length >= rows;
  });
  return shown;
}

describe('webhook endpoints in the console', () => {
  test('an endpoint added on the page signs its test message with the secret shown once; the list shows it', async () => {
    const target = await receiver();
    const { endpointId, secret } = await addEndpoint(target.url, { description: 'Payroll sync', types: 'shift.created' });
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await agent.get(listPage());
    assert.equal(list.status, 200);
    assert.ok(list.html.includes(target.url) && list.html.includes('Payroll sync') && list.html.includes('shift.created'));
    const page = await agent.get(endpointPage(endpointId));
    assert.equal(page.status, 200);
    assert.equal(testId(page.html, 'webhook-id'), endpointId);
    for (const html of [list.html, page.html]) assert.ok(!html.includes(secret), 'the secret is never shown again');

    const sent = await act(endpointId, '/test');
    assert.match(sent.html, /A test message \(msg_[\w-]+\) is queued/);
    const [message] = await target.waitFor(1);
    const body = verified(secret, message!) as { type: string; data: { endpointId: string } };
    assert.equal(body.type, 'webhook.test');
    assert.equal(body.data.endpointId, endpointId);
    assert.deepEqual(await logOf(endpointId, 1), [['delivered', '204']]);
  });

  test('a rotation shows the new secret once; messages are signed with both until the overlap ends', async () => {
    const target = await receiver();
    const { endpointId, secret: old } = await addEndpoint(target.url);
    const rotated = await agent.submit(endpointPage(endpointId), `${endpointPage(endpointId)}/rotate-secret`);
    assert.equal(rotated.status, 200, rotated.html);
    const fresh = testId(rotated.html, 'webhook-secret');
    assert.notEqual(fresh, old);
    assert.match(rotated.html, /previous secret keeps signing beside it until/);
    assert.match((await agent.get(endpointPage(endpointId))).html, /A rotation is under way/);
    await act(endpointId, '/test');
    const [message] = await target.waitFor(1);
    assert.equal(message!.signature.split(' ').length, 2);
    assert.doesNotThrow(() => verified(old, message!), 'the old secret still verifies during the overlap');
    assert.doesNotThrow(() => verified(fresh, message!));
  });

  test('a disabled endpoint holds its messages; enabling sends them', async () => {
    const target = await receiver();
    const { endpointId } = await addEndpoint(target.url);
    const disabled = await act(endpointId, '/disable');
    assert.match(disabled.html, /The endpoint is disabled/);
    assert.equal(testId(disabled.html, 'webhook-state'), 'disabled');
    assert.match(disabled.html, /an admin disabled it/);
    assert.match((await agent.get(listPage())).html, /state-disabled/);
    await act(endpointId, '/test');
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(target.received.length, 0, 'nothing is sent while disabled');
    const enabled = await act(endpointId, '/enable');
    assert.equal(testId(enabled.html, 'webhook-state'), 'enabled');
    await target.waitFor(1);
  });

  test('a failed delivery shows its response code and is retried from the log', async () => {
    const target = await receiver((index) => ({ status: index === 0 ? 500 : 200 }));
    const { endpointId, secret } = await addEndpoint(target.url);
    await act(endpointId, '/test');
    assert.deepEqual(await logOf(endpointId, 1), [['failed', '500']]);
    const page = (await agent.get(endpointPage(endpointId))).html;
    const retry = /action="([^"]+\/deliveries\/[^"]+\/retry)"/.exec(page)?.[1];
    assert.ok(retry, 'a failed delivery has a Retry button');
    const answer = await act(endpointId, unescapeHtml(retry).slice(`${endpointPage(endpointId)}`.length));
    assert.match(answer.html, /Message msg_[\w-]+ is sent again/);
    const [first, second] = await target.waitFor(2);
    assert.equal(second!.id, first!.id, 'the same message, with its id');
    assert.doesNotThrow(() => verified(secret, second!));
    assert.deepEqual(await logOf(endpointId, 2), [['delivered', '200'], ['failed', '500']], 'newest first');
  });

  test('a period is replayed with the original ids; a bad period is a form error', async () => {
    const target = await receiver();
    const { endpointId } = await addEndpoint(target.url, { types: 'department.created' });
    await importCompanyData(server.ctx.db, home.companyId, { departments: [{ ref: 'r1', name: 'Replay one', code: 'R1' }, { ref: 'r2', name: 'Replay two', code: 'R2' }] });
    await target.waitFor(2);
    const page = endpointPage(endpointId);
    const empty = await agent.submit(page, `${page}/replay`, { from: '2100-01-01T00:00', to: '2000-01-01T00:00' });
    assert.equal(empty.status, 400);
    assert.match(empty.html, /To must be after from/);
    assert.match(empty.html, /value="2100-01-01T00:00"/);
    const replayed = await act(endpointId, '/replay', { from: '2000-01-01T00:00', to: '2100-01-01T00:00' });
    assert.match(replayed.html, /2 messages of the period queued again/);
    await target.waitFor(4);
    assert.deepEqual(target.received.slice(2).map((m) => m.id), target.received.slice(0, 2).map((m) => m.id));
  });

  test('the delivery log pages newest first', async () => {
    const target = await receiver();
    const { endpointId } = await addEndpoint(target.url);
    const caller = { deps: server.ctx, companyId: home.companyId, log: server.app.log };
    const ids: string[] = [];
    for (let i = 0; i < 26; i += 1) ids.push(await sendTestMessage(caller, endpointId));
    await target.waitFor(26);
    await logOf(endpointId, 25);
    const first = await agent.get(endpointPage(endpointId));
    assert.equal(logRows(first.html).length, 25);
    assert.ok(first.html.indexOf(ids[25]!) < first.html.indexOf(ids[24]!), 'newest first');
    assert.ok(!first.html.includes(ids[0]!));
    const older = /href="([^"]+)">Older attempts/.exec(first.html)?.[1];
    assert.ok(older);
    const second = await agent.get(unescapeHtml(older));
    assert.equal(logRows(second.html).length, 1);
    assert.ok(second.html.includes(ids[0]!));
  });

  test('a refused URL shows the form again with the reason and what was typed; nothing is created', async () => {
    const count = async () => (await server.ctx.db.selectFrom('webhook_endpoints').select('id').where('company_id', '=', home.companyId).execute()).length;
    const before = await count();
    const answer = await agent.submit(listPage(), listPage(), { url: 'ftp://files.example/hooks', description: '<b>kept</b>' });
    assert.equal(answer.status, 400);
    assert.match(answer.html, /URL must be an https URL/);
    assert.match(answer.html, /value="ftp:\/\/files.example\/hooks"/);
    assert.match(answer.html, /value="&lt;b&gt;kept&lt;\/b&gt;"/);
    const unknownType = await agent.submit(listPage(), listPage(), { url: 'http://127.0.0.1:9/typed', types: 'shift.exploded' });
    assert.equal(unknownType.status, 400);
    assert.match(unknownType.html, /Message types has an unknown type shift\.exploded\./);
    assert.equal(await count(), before);
  });

  test('changes are audited with the console user as actor', async () => {
    const { endpointId } = await addEndpoint('http://127.0.0.1:9/audited');
    await act(endpointId, '/disable');
    const rows = await server.ctx.db.selectFrom('audit_log').select(['event', 'detail', 'actor_kind', 'actor_email', 'context']).where('organisation_id', '=', home.organisationId).where('detail', 'in', ['webhook_endpoint_created', 'webhook_endpoint_disabled']).execute();
    const mine = rows.filter((row) => String(row.context).includes(endpointId));
    assert.deepEqual(mine.map((row) => row.detail).sort(), ['webhook_endpoint_created', 'webhook_endpoint_disabled']);
    for (const row of mine) assert.deepEqual([row.event, row.actor_kind, row.actor_email], ['console_change', 'console_user', admin.email]);
  });
});

describe('who may do what', () => {
  test('a viewer reads the pages; every form it replays with its own CSRF token is refused and changes nothing', async () => {
    const { endpointId } = await addEndpoint('http://127.0.0.1:9/viewed');
    const viewer = await enrolPerson(server, clock, home.organisationId, 'viewer');
    const list = await viewer.agent.get(listPage());
    assert.equal(list.status, 200);
    assert.doesNotMatch(list.html, /Add endpoint/);
    const page = await viewer.agent.get(endpointPage(endpointId));
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.html, /Rotate secret|Disable endpoint|Send a test message|Replay/);
    const token = /name="csrf_token" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
    for (const [action, fields] of actions(home.companyId, endpointId)) {
      const answer = await viewer.agent.request('POST', action, { csrf_token: token, ...fields });
      assert.equal(answer.status, 403, action);
    }
    assert.equal(testId((await agent.get(endpointPage(endpointId))).html, 'webhook-state'), 'enabled');
  });

  test('a form without its CSRF token is refused', async () => {
    const { endpointId } = await addEndpoint('http://127.0.0.1:9/forged');
    for (const [action, fields] of actions(home.companyId, endpointId)) {
      const answer = await agent.request('POST', action, fields);
      assert.equal(answer.status, 403, action);
    }
    assert.equal(testId((await agent.get(endpointPage(endpointId))).html, 'webhook-state'), 'enabled');
  });

  test('another organisation\'s company and endpoint are 404 in URLs and forms, and nothing changes', async () => {
    const other = await provisionTenant(server.ctx, { name: 'Other Webhooks Org' });
    const { row: created } = await registerEndpoint({ deps: server.ctx, companyId: other.companyId, log: server.app.log }, { url: 'http://127.0.0.1:9/theirs' });
    // All but the dispatcher's lease, which its background pass may take at any moment.
    const stored = async () => {
      const { lease_owner: _owner, lease_until: _until, ...row } = await server.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
      return row;
    };
    const theirs = await stored();
    const gets = [`/console/companies/${other.companyId}/webhooks`, `/console/companies/${other.companyId}/webhooks/${theirs.id}`, `/console/companies/${home.companyId}/webhooks/${theirs.id}`];
    for (const path of gets) {
      const answer = await agent.get(path);
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.html, /Other Webhooks Org|\/theirs/, path);
    }
    // Their endpoint through their company, and through ours (where only the endpoint is foreign).
    const forms = [...actions(other.companyId, theirs.id), ...actions(home.companyId, theirs.id).slice(1)];
    for (const [action, fields] of forms) {
      const answer = await agent.submit(listPage(), action, fields);
      assert.equal(answer.status, 404, action);
    }
    assert.deepEqual(await stored(), theirs, 'their endpoint is untouched');
    assert.equal((await server.ctx.db.selectFrom('webhook_messages').select('id').where('endpoint_id', '=', theirs.id).execute()).length, 0, 'nothing queued for it');
  });

  test('adding an endpoint more than 10 minutes after the last confirmation asks for password and code first', async () => {
    const { agent: late } = await signIn(server, clock, admin);
    clock.advance(11 * 60_000);
    try {
      const shown = await late.get(listPage());
      assert.match(shown.html, /confirm it is you/);
      assert.doesNotMatch(shown.html, /Add endpoint/);
      const posted = await late.request('POST', listPage(), { csrf_token: /name="csrf_token" value="([^"]+)"/.exec(shown.html)?.[1] ?? '', url: 'http://127.0.0.1:9/late' });
      assert.equal(posted.status, 303);
      assert.match(posted.location ?? '', /^\/console\/step-up\?next=/);
    } finally {
      clock.advance(-11 * 60_000);
    }
  });
});

/** Every form of the webhook pages, with fields that would change something. */
function actions(companyId: string, endpointId: string): [string, Record<string, string>][] {
  const base = `/console/companies/${companyId}/webhooks`;
  return [
    [base, { url: 'http://127.0.0.1:9/intruder' }],
    [`${base}/${endpointId}/rotate-secret`, {}],
    [`${base}/${endpointId}/disable`, {}],
    [`${base}/${endpointId}/enable`, {}],
    [`${base}/${endpointId}/test`, {}],
    [`${base}/${endpointId}/deliveries/whd_nothing/retry`, {}],
    [`${base}/${endpointId}/replay`, { from: '2000-01-01T00:00', to: '2100-01-01T00:00' }],
  ];
}

describe('destinations of the service\'s own network', () => {
  const secure = new ManualClock();
  let strict: TestServer;
  let person: ConsolePerson;
  let tenant: Tenant;

  before(async () => {
    strict = await startTestServer({}, { clock: secure, inProcess: true });
    tenant = await provisionTenant(strict.ctx, { name: 'Strict Webhooks' });
    person = await enrolPerson(strict, secure, tenant.organisationId);
  });
  after(() => strict.close());

  test('are refused on the form, by address and by a name that resolves to one', async () => {
    const page = `/console/companies/${tenant.companyId}/webhooks`;
    const cases: [string, RegExp][] = [
      ['https://127.0.0.1/hooks', /URL 127\.0\.0\.1 is a loopback address; webhooks go only to public addresses\./],
      ['https://169.254.169.254/latest', /URL 169\.254\.169\.254 is a linkLocal address/],
      ['https://localhost/hooks', /URL localhost does not resolve to a public address; webhooks go only to public addresses\./],
      ['http://hooks.customer.example/in', /URL must be an https URL/],
    ];
    for (const [url, reason] of cases) {
      const answer = await person.agent.submit(page, page, { url });
      assert.equal(answer.status, 400, url);
      assert.match(answer.html, reason, url);
    }
    assert.equal((await strict.ctx.db.selectFrom('webhook_endpoints').select('id').execute()).length, 0);
  });
});
