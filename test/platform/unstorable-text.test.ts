// Text no database stores faithfully (contract: errors and limits): U+0000 (PostgreSQL refuses it, SQLite keeps it)
// and unpaired UTF-16 surrogates (stored as U+FFFD, so two different keys became one row). Every
// such string is refused with 400 at the edge, wherever it arrives — JSON body, form body, query,
// path — in the shape of the endpoint: problem+json on the company and operator API, RFC 6749 JSON on
// the OAuth endpoints, an HTML page on the login page and the console. Nothing is stored. In a URL or
// a form a lone surrogate can only be written as its (invalid) UTF-8 bytes, percent-encoded: every
// escape that does not decode to UTF-8 text is refused the same way, where the parsers would keep it
// as literal characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { useCompanyServer } from '../support/company.ts';
import { addDepartment, addEmployee } from '../timeclock/fixtures.ts';
import { bearer } from '../support/tenants.ts';
import { openLoginForm } from '../support/login.ts';
import { authorizeUrl, defaultParams } from '../iam/helpers.ts';
import type { ProblemBody } from '../support/http.ts';

const ADMIN_TOKEN = 'admin-token-for-unstorable-text-tests';
const company = useCompanyServer({ name: 'Canteen', env: { ADMIN_TOKEN }, inProcess: true });

/** JSON text with the string escapes kept as written (`\u0000`, a lone `\ud800`): fetch would turn a lone surrogate into U+FFFD. */
function send(path: string, jsonText: string, headers: Record<string, string> = bearer(company.token)): Promise<Response> {
  return company.server.fetch(`${company.server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: jsonText });
}

/** Escapes that decode to no UTF-8 text: U+D800 and U+DC00 as UTF-8 bytes, an overlong NUL, a truncated sequence, a `%` without two hex digits. */
const MALFORMED = ['%ED%A0%80', '%ED%B0%80', '%C0%80', '%F0', '%ZZ'];
/** What an answer's description says of the refused text. */
const REASON = /U\+0000|surrogate|percent-encod/;

async function assertProblem(response: Response, path: string, what = ''): Promise<void> {
  const body = (await response.json()) as ProblemBody & { requestId: string };
  assert.equal(response.status, 400, `${what} ${JSON.stringify(body)}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(body.code, 'invalid_character', what);
  assert.match(body.detail, REASON, what);
  assert.equal(body.requestId, response.headers.get('x-request-id'));
  assert.deepEqual(body.errors?.map((e) => e.path), [path], what);
}

/** A secured answer counted against the client's rate limit, as every secured answer is. */
function assertRateLimited(response: Response, what: string): void {
  assert.match(response.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/, what);
}

async function assertOAuthInvalidRequest(response: Response, what = ''): Promise<void> {
  const body = (await response.json()) as { error: string; error_description: string };
  assert.equal(response.status, 400, `${what} ${JSON.stringify(body)}`);
  assert.equal(body.error, 'invalid_request', what);
  assert.match(body.error_description, REASON, what);
  assert.ok(response.headers.get('x-request-id'));
}

async function assertHtmlPage(response: Response, what = ''): Promise<void> {
  const html = await response.text();
  assert.equal(response.status, 400, `${what} ${html}`);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(html, REASON, what);
  assert.ok(response.headers.get('x-request-id'));
}

async function storedRevenueRows(): Promise<number> {
  const rows = await company.server.ctx.db.selectFrom('inbound_items').select('id').where('company_id', '=', company.tenant.companyId).execute();
  return rows.length;
}

test('a revenue category or departmentId holding U+0000 is 400 invalid_character naming the field, nothing stored', async () => {
  const kitchen = await addDepartment(company.server.ctx.db, company.tenant.companyId);
  const good = `{"departmentId":"${kitchen}","date":"2026-11-20","kind":"realised","amount":10}`;
  await assertProblem(await send('/api/v1/company/revenue', `{"items":[${good},{"departmentId":"${kitchen}","date":"2026-11-20","kind":"realised","amount":1,"category":"a\\u0000b"}]}`), '/items/1/category');
  await assertProblem(await send('/api/v1/company/wage-budget', `{"items":[{"departmentId":"d\\u0000","date":"2026-11-20","amount":1}]}`), '/items/0/departmentId');
  assert.equal(await storedRevenueRows(), 0);
});

test('categories with unpaired surrogates ("x\\ud800", "x\\udbff") are refused instead of collapsing into one U+FFFD row', async () => {
  const kitchen = await addDepartment(company.server.ctx.db, company.tenant.companyId, 'Bar');
  const item = (category: string) => `{"departmentId":"${kitchen}","date":"2026-11-21","kind":"realised","amount":1,"category":"${category}"}`;
  await assertProblem(await send('/api/v1/company/revenue', `{"items":[${item('x\\ud800')},${item('x\\udbff')}]}`), '/items/0/category');
  // A trailing low surrogate alone is unpaired too; a proper pair (an emoji) is fine.
  await assertProblem(await send('/api/v1/company/revenue', `{"items":[${item('\\ude00x')}]}`), '/items/0/category');
  const paired = await send('/api/v1/company/revenue', `{"items":[${item('\\ud83d\\ude00')}]}`);
  assert.equal(paired.status, 200, await paired.text());
  assert.equal(await storedRevenueRows(), 1);
});

test('a property name holding U+0000 is refused as well', async () => {
  await assertProblem(await send('/api/v1/company/revenue', '{"items":[{"a\\u0000":1}]}'), '/items/0');
});

test('a timeclock badgeId, userId or deviceId holding U+0000 is 400 invalid_character', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const event = { eventId: randomUUID(), type: 'clock_in', occurredAt: new Date(Date.now() - 60_000).toISOString(), source: 'terminal' };
  await assertProblem(await send('/api/v1/timeclock/events', JSON.stringify({ ...event, badgeId: 'B\u0000' })), '/badgeId');
  await assertProblem(await send('/api/v1/timeclock/events', JSON.stringify({ ...event, userId: 'u\u0000' })), '/userId');
  await assertProblem(await send('/api/v1/timeclock/events', JSON.stringify({ ...event, badgeId: person.badgeId, deviceId: 'dev\u0000' })), '/deviceId');
  await assertProblem(await send('/api/v1/timeclock/events', JSON.stringify({ ...event, badgeId: person.badgeId, deviceId: 'dev\ud800' })), '/deviceId');
  const stored = await company.server.ctx.db.selectFrom('timeclock_events').select('id').execute();
  assert.equal(stored.length, 0);
});

test('the userId and companyId queries of the timeclock reads holding U+0000 are 400 naming the parameter', async () => {
  const get = (path: string) => company.server.fetch(`${company.server.baseUrl}${path}`, { headers: bearer(company.token) });
  await assertProblem(await get('/api/v1/timeclock/events?userId=a%00b'), '/querystring/userId');
  await assertProblem(await get('/api/v1/timeclock/events?companyId=%00'), '/querystring/companyId');
  await assertProblem(await get('/api/v1/timeclock/badges?companyId=c%00'), '/querystring/companyId');
});

test('the token endpoint refuses U+0000 or a lone surrogate in JSON and in form fields, even without valid credentials: 400 invalid_request', async () => {
  const token = (body: string, contentType: string) => company.server.fetch(`${company.server.config.issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': contentType }, body });
  await assertOAuthInvalidRequest(await token('{"grant_type":"client_credentials","client_id":"a\\u0000b","client_secret":"x"}', 'application/json'));
  await assertOAuthInvalidRequest(await token('{"grant_type":"client_credentials","client_id":"a\\udc00b","client_secret":"x"}', 'application/json'));
  await assertOAuthInvalidRequest(await token('grant_type=client_credentials&client_id=a%00b&client_secret=x', 'application/x-www-form-urlencoded'));
  const revoke = await company.server.fetch(`${company.server.config.issuer}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=t%00&client_id=${company.tenant.clientId}` });
  await assertOAuthInvalidRequest(revoke);
});

test('the login page answers an HTML 400 page for client_id=a%00b and for a login email holding U+0000', async () => {
  await assertHtmlPage(await company.server.fetch(`${company.server.config.authUrl}/oauth/authorize?response_type=code&client_id=a%00b&redirect_uri=x`));
  const form = await openLoginForm(authorizeUrl(company.server, defaultParams(company.tenant)));
  assert.equal(form.response.status, 200);
  const body = new URLSearchParams({ ...form.fields, secret: company.tenant.secret }).toString() + '&email=a%00%40example.com';
  const submitted = await company.server.fetch(`${company.server.config.authUrl}/oauth/authorize`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie }, body,
  });
  await assertHtmlPage(submitted);
});

test('a path parameter holding U+0000 is 400 invalid_character naming it', async () => {
  const response = await company.server.fetch(`${company.server.baseUrl}/api/v1/admin/api-clients/cli%00x/disable`, { method: 'POST', headers: bearer(ADMIN_TOKEN) });
  await assertProblem(response, '/params/clientId');
  // On a path no route answers, the path is refused as a whole.
  await assertProblem(await company.server.fetch(`${company.server.baseUrl}/api/v1/company/configurat%00ion`, { headers: bearer(company.token) }), '/params');
});

test('a query parameter whose escapes decode to no UTF-8 text (an encoded surrogate, an overlong or truncated sequence, %ZZ) is 400 invalid_character naming it, counted as every secured answer', async () => {
  const get = (path: string) => company.server.fetch(`${company.server.baseUrl}${path}`, { headers: bearer(company.token) });
  for (const escape of MALFORMED) {
    const events = await get(`/api/v1/timeclock/events?userId=a${escape}`);
    assertRateLimited(events, escape);
    await assertProblem(events, '/querystring/userId', escape);
    await assertProblem(await get(`/api/v1/timeclock/badges?companyId=${escape}`), '/querystring/companyId', escape);
    // In a parameter's name, the name cannot be told: the answer points at the query.
    await assertProblem(await get(`/api/v1/timeclock/events?x${escape}=1`), '/querystring', escape);
  }
  // Valid escapes, a proper surrogate pair (U+1F600) among them, are text as ever.
  assert.equal((await get('/api/v1/timeclock/events?userId=%F0%9F%98%80%20a%2Bb')).status, 200);
});

test('a path segment whose escapes decode to no UTF-8 text is 400 invalid_character naming the parameter, with the rate-limit headers on secured paths', async () => {
  for (const escape of MALFORMED) {
    const webhook = await company.server.fetch(`${company.server.baseUrl}/api/v1/company/webhooks/w${escape}`, { headers: bearer(company.token) });
    assertRateLimited(webhook, escape);
    await assertProblem(webhook, '/params/id', escape);
    await assertProblem(await company.server.fetch(`${company.server.baseUrl}/api/v1/admin/api-clients/cli${escape}x/disable`, { method: 'POST', headers: bearer(ADMIN_TOKEN) }), '/params/clientId', escape);
    // Where no route matches the path (the escape in a fixed segment), the path is refused as a whole, not 404.
    await assertProblem(await company.server.fetch(`${company.server.baseUrl}/api/v1/company/configurat${escape}ion`, { headers: bearer(company.token) }), '/params', escape);
  }
});

test('the OAuth endpoints answer invalid_request to escapes that decode to no UTF-8 text, in a form field or the query', async () => {
  const issuer = company.server.config.issuer;
  for (const escape of MALFORMED) {
    const revoke = await company.server.fetch(`${issuer}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${escape}&client_id=${company.tenant.clientId}` });
    await assertOAuthInvalidRequest(revoke, escape);
    const token = await company.server.fetch(`${issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=a${escape}&client_secret=x` });
    await assertOAuthInvalidRequest(token, escape);
    const query = await company.server.fetch(`${issuer}/oauth/token?client_id=${escape}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"client_credentials"}' });
    await assertOAuthInvalidRequest(query, escape);
  }
});

test('the login page and the console answer an HTML 400 page to escapes that decode to no UTF-8 text, in the query, a form or the path', async () => {
  const authUrl = company.server.config.authUrl;
  for (const escape of MALFORMED) {
    await assertHtmlPage(await company.server.fetch(`${authorizeUrl(company.server, defaultParams(company.tenant))}&nonce=${escape}`), escape);
    const form = { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' } } as const;
    await assertHtmlPage(await company.server.fetch(`${authUrl}/oauth/authorize`, { ...form, body: `email=a${escape}%40example.com&secret=x` }), escape);
    await assertHtmlPage(await company.server.fetch(`${company.server.baseUrl}/console/login`, { ...form, body: `email=${escape}&password=x` }), escape);
    await assertHtmlPage(await company.server.fetch(`${company.server.baseUrl}/console/invitations/t${escape}`), escape);
  }
});
