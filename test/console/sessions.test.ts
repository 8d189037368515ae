// Console users and sessions over plain HTTP (CONTRACT §6): invitations used once and for 72 hours,
// password rules, TOTP enrolment and sign-in with each time step accepted once, CSRF on every form,
// the viewer's read-only role, penalties for failed sign-ins, step-up, sign-out that ends the session
// on the server, and the idle and absolute timeouts (the server's clock is moved, nobody sleeps).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock.ts';
import { inviteConsoleUser } from '../../src/console/people.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { ConsoleAgent, csrfToken, enrolPerson, nextStep, signIn, testId, totpCode, type ConsolePerson } from '../support/console.ts';

const clock = new ManualClock(Date.parse('2026-11-25T09:00:00Z'));
let server: TestServer;
let organisationId: string;
let admin: ConsolePerson;

before(async () => {
  server = await startTestServer({}, { clock, inProcess: true });
  organisationId = (await provisionTenant(server.ctx, { name: 'Sessions' })).organisationId;
  admin = await enrolPerson(server, clock, organisationId);
});
after(() => server.close());

async function invite(email: string, role: 'admin' | 'viewer' = 'admin'): Promise<string> {
  return (await inviteConsoleUser(server.ctx.db, { organisationId, email, role, invitedBy: null }, server.config.authUrl, clock.now())).inviteUrl;
}

describe('invitations', () => {
  test('an invitation is accepted once; its link is then dead', async () => {
    const url = await invite('once@customer.example');
    const agent = new ConsoleAgent(server);
    const enrol = await agent.submit(url, url, { password: 'a long enough password' });
    nextStep(clock);
    const done = await agent.request('POST', `${url}/code`, { csrf_token: csrfToken(enrol.html), code: await totpCode(testId(enrol.html, 'totp-secret'), clock) });
    assert.equal(done.status, 303);
    assert.equal((await new ConsoleAgent(server).get(url)).status, 404);
  });

  test('an invitation expires after 72 hours', async () => {
    const url = await invite('late@customer.example');
    clock.advance(72 * 3600_000 + 1000);
    const page = await new ConsoleAgent(server).get(url);
    assert.equal(page.status, 404);
    assert.match(page.html, /expired/);
  });

  test('the password has 12 to 256 characters', async () => {
    const url = await invite('rules@customer.example');
    const agent = new ConsoleAgent(server);
    for (const password of ['eleven char', 'x'.repeat(257)]) {
      const answer = await agent.submit(url, url, { password });
      assert.equal(answer.status, 400);
      assert.match(answer.html, /role="alert"/);
    }
    assert.equal((await agent.submit(url, url, { password: 'x'.repeat(256) })).status, 200);
  });

  test('wrong enrolment codes count toward the invitation\'s penalty', async () => {
    const url = await invite('guessing@customer.example');
    const agent = new ConsoleAgent(server);
    const enrol = await agent.submit(url, url, { password: 'a guessed password' });
    const secret = testId(enrol.html, 'totp-secret');
    const right = await totpCode(secret, clock);
    const wrong = right === '000000' ? '111111' : '000000';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await agent.request('POST', `${url}/code`, { csrf_token: csrfToken(enrol.html), code: wrong })).status);
    assert.deepEqual(statuses, [400, 400, 400, 400, 400, 429]);
    clock.advance(2_000);
    assert.equal((await agent.request('POST', `${url}/code`, { csrf_token: csrfToken(enrol.html), code: await totpCode(secret, clock) })).status, 303, 'the penalty lapses');
  });

  test('enrolment finishes only after a right code, and that code cannot sign in again', async () => {
    const url = await invite('enrol@customer.example');
    const agent = new ConsoleAgent(server);
    const enrol = await agent.submit(url, url, { password: 'twelve chars ok' });
    const secret = testId(enrol.html, 'totp-secret');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.match(enrol.html, /otpauth:\/\/totp\/WFS%20Console:enrol%40customer\.example\?secret=/);
    const wrong = await agent.request('POST', `${url}/code`, { csrf_token: csrfToken(enrol.html), code: '000000' === (await totpCode(secret, clock)) ? '111111' : '000000' });
    assert.equal(wrong.status, 400);
    assert.equal(testId(wrong.html, 'totp-secret'), secret, 'the same key is shown again');
    const code = await totpCode(secret, clock);
    assert.equal((await agent.request('POST', `${url}/code`, { csrf_token: csrfToken(enrol.html), code })).status, 303);
    // Signing in within the same 30-second step: the enrolment code is spent.
    const again = new ConsoleAgent(server);
    assert.equal((await again.submit('/console/login', '/console/login', { email: 'enrol@customer.example', password: 'twelve chars ok' })).status, 303);
    const replay = await again.submit('/console/login/code', '/console/login/code', { code });
    assert.equal(replay.status, 401);
  });
});

describe('signing in', () => {
  test('a wrong password gets the form again with a generic message, and no session', async () => {
    const agent = new ConsoleAgent(server);
    const answer = await agent.submit('/console/login', '/console/login', { email: admin.email, password: 'not the password' });
    assert.equal(answer.status, 401);
    assert.match(answer.html, /The email or password is not correct\./);
    assert.equal(agent.session(), undefined);
  });

  test('a TOTP step is accepted once per person', async () => {
    const first = await signIn(server, clock, admin);
    assert.equal(first.answer.status, 303);
    const agent = new ConsoleAgent(server);
    await agent.submit('/console/login', '/console/login', { email: admin.email, password: admin.password });
    const replay = await agent.submit('/console/login/code', '/console/login/code', { code: await totpCode(admin.totpSecret, clock) });
    assert.equal(replay.status, 401);
    assert.match(replay.html, /used already/);
    assert.equal((await agent.get('/console')).status, 303, 'still not signed in');
  });

  test('the code page is reachable only after a right password', async () => {
    const answer = await new ConsoleAgent(server).get('/console/login/code');
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/console/login');
  });

  test('the session cookie is HttpOnly and SameSite=Lax; a new token is issued when the code is right', async () => {
    const agent = new ConsoleAgent(server);
    await agent.submit('/console/login', '/console/login', { email: admin.email, password: admin.password });
    const passwordStage = agent.session();
    nextStep(clock);
    const page = await agent.get('/console/login/code');
    const answer = await agent.request('POST', '/console/login/code', { csrf_token: csrfToken(page.html), code: await totpCode(admin.totpSecret, clock) });
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('wfs_console='));
    assert.ok(cookie);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/, 'AUTH_URL is http here');
    assert.notEqual(agent.session(), passwordStage);
  });

  test('failed sign-ins of one email from one address are penalised', async () => {
    const agent = new ConsoleAgent(server);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await agent.submit('/console/login', '/console/login', { email: 'nobody@customer.example', password: 'wrong password!' })).status);
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    assert.equal(statuses[5], 429);
    assert.equal((await signIn(server, clock, admin)).answer.status, 303, 'another account is not penalised');
  });

  test('after a penalty lapses, the right password and then the right code sign in at once', async () => {
    const agent = new ConsoleAgent(server);
    for (let i = 0; i < 5; i++) assert.equal((await agent.submit('/console/login', '/console/login', { email: admin.email, password: 'wrong password!' })).status, 401);
    // A fresh TOTP step, long after the 1 s penalty: the penalty's record still lives, so the password's counted attempt starts the next one.
    nextStep(clock);
    assert.equal((await agent.submit('/console/login', '/console/login', { email: admin.email, password: admin.password })).status, 303);
    clock.advance(1_000);
    const answer = await agent.submit('/console/login/code', '/console/login/code', { code: await totpCode(admin.totpSecret, clock) });
    assert.equal(answer.status, 303, 'the code is counted apart from the password, and its success clears both');
    assert.equal((await new ConsoleAgent(server).submit('/console/login', '/console/login', { email: admin.email, password: 'wrong password!' })).status, 401, 'no penalty left');
  });
});

describe('forms and roles', () => {
  test('a form without its CSRF token, or with another session\'s, is refused', async () => {
    const mine = (await signIn(server, clock, admin)).agent;
    const other = await signIn(server, clock, admin);
    const otherToken = csrfToken((await other.agent.get('/console')).html);
    for (const fields of [{}, { csrf_token: otherToken }, { csrf_token: '' }] as Record<string, string>[]) {
      const answer = await mine.request('POST', '/console/console-users', { ...fields, email: 'csrf@customer.example', role: 'viewer' });
      assert.equal(answer.status, 403);
      assert.match(answer.html, /expired or did not come from the console/);
    }
  });

  test('a viewer reads every page but its own valid forms are refused', async () => {
    const viewer = await enrolPerson(server, clock, organisationId, 'viewer');
    const people = await viewer.agent.get('/console/console-users');
    assert.equal(people.status, 200);
    assert.doesNotMatch(people.html, /Invite someone/);
    const token = csrfToken(people.html);
    const { id: adminId } = await server.ctx.db.selectFrom('console_users').select('id').where('email', '=', admin.email).executeTakeFirstOrThrow();
    for (const [action, fields] of [['/console/console-users', { email: 'v@customer.example', role: 'admin' }], [`/console/console-users/${adminId}/role`, { role: 'viewer' }], [`/console/console-users/${adminId}/remove`, {}]] as const) {
      const answer = await viewer.agent.request('POST', action, { csrf_token: token, ...fields });
      assert.equal(answer.status, 403, action);
      assert.match(answer.html, /Your role is viewer/);
    }
    // The viewer can still sign out.
    assert.equal((await viewer.agent.request('POST', '/console/sign-out', { csrf_token: token })).status, 303);
  });

  test('another organisation\'s console user id is not found', async () => {
    const elsewhere = (await provisionTenant(server.ctx, { name: 'Elsewhere' })).organisationId;
    const stranger = await enrolPerson(server, clock, elsewhere);
    const strangerId = /console-users\/(cus_[A-Za-z0-9_-]+)\/role/.exec((await stranger.agent.get('/console/console-users')).html)?.[1] ?? '';
    assert.ok(strangerId);
    const { agent } = await signIn(server, clock, admin);
    for (const action of [`/console/console-users/${strangerId}/role`, `/console/console-users/${strangerId}/remove`]) {
      const answer = await agent.submit('/console/console-users', action, { role: 'viewer' });
      assert.equal(answer.status, 404, action);
    }
    assert.doesNotMatch((await agent.get('/console/console-users')).html, new RegExp(stranger.email));
  });

  test('an admin invites after confirming password and code within the last 10 minutes', async () => {
    const { agent } = await signIn(server, clock, admin);
    clock.advance(11 * 60_000);
    const page = await agent.get('/console/console-users');
    assert.match(page.html, /confirm it is you/);
    const stale = await agent.request('POST', '/console/console-users', { csrf_token: csrfToken(page.html), email: 'invited@customer.example', role: 'viewer' });
    assert.equal(stale.status, 303);
    assert.equal(stale.location, `/console/step-up?next=${encodeURIComponent('/console/console-users')}`);
    nextStep(clock);
    const stepUp = await agent.submit(stale.location ?? '', '/console/step-up', { password: admin.password, code: await totpCode(admin.totpSecret, clock), next: '/console/console-users' });
    assert.equal(stepUp.status, 303);
    assert.equal(stepUp.location, '/console/console-users');
    const invited = await agent.submit('/console/console-users', '/console/console-users', { email: 'invited@customer.example', role: 'viewer' });
    assert.equal(invited.status, 200);
    assert.match(testId(invited.html, 'invite-url'), /^http:\/\/localhost:\d+\/console\/invitations\/[A-Za-z0-9_-]{43}$/);
  });

  test('an address with a console account in another organisation is invited like an unknown one; the person learns of it on opening the link', async () => {
    const elsewhere = (await provisionTenant(server.ctx, { name: 'Other Tenant' })).organisationId;
    const stranger = await enrolPerson(server, clock, elsewhere);
    const { agent } = await signIn(server, clock, admin);
    const answers = [];
    for (const email of [stranger.email, 'nobody-yet@customer.example']) {
      const answer = await agent.submit('/console/console-users', '/console/console-users', { email, role: 'viewer' });
      const inviteUrl = testId(answer.html, 'invite-url');
      // The same page but for the address, the link, the script nonce and the pending list (one longer).
      const page = answer.html.replaceAll(email, 'EMAIL').replaceAll(inviteUrl, 'URL').replace(/nonce="[^"]*"/, '').replace(/<h2>Open invitations<\/h2>[\s\S]*?<\/ul>/, '');
      answers.push({ status: answer.status, alert: /role="alert"/.test(answer.html), page });
      if (email === stranger.email) {
        const opened = await new ConsoleAgent(server).get(inviteUrl);
        assert.equal(opened.status, 409);
        assert.match(opened.html, /already has a console account, so this invitation cannot be accepted/);
      }
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[0] && [answers[0].status, answers[0].alert], [200, false]);
    const accounts = await server.ctx.db.selectFrom('console_users').select('organisation_id').where('email', '=', stranger.email).execute();
    assert.deepEqual(accounts.map((row) => row.organisation_id), [elsewhere]);
  });

  test('an admin inviting a member of its own organisation is told so', async () => {
    const member = await enrolPerson(server, clock, organisationId, 'viewer');
    const { agent } = await signIn(server, clock, admin);
    const answer = await agent.submit('/console/console-users', '/console/console-users', { email: member.email, role: 'admin' });
    assert.equal(answer.status, 409);
    assert.match(answer.html, /is already a member of your organisation/);
  });

  test('a step-up never sends the browser to another site', async () => {
    const { agent } = await signIn(server, clock, admin);
    nextStep(clock);
    for (const next of ['https://evil.example/', '//evil.example/console', '/console//evil.example']) {
      const answer = await agent.submit('/console/step-up', '/console/step-up', { password: admin.password, code: await totpCode(admin.totpSecret, clock), next });
      assert.equal(answer.location, '/console', next);
      nextStep(clock);
    }
  });
});

describe('session lifetime', () => {
  test('signing out ends the session on the server: the old cookie no longer works', async () => {
    const { agent } = await signIn(server, clock, admin);
    const stolen = new ConsoleAgent(server);
    for (const [name, value] of agent.cookies) stolen.cookies.set(name, value);
    assert.equal((await stolen.get('/console')).status, 200);
    const page = await agent.get('/console');
    assert.equal((await agent.request('POST', '/console/sign-out', { csrf_token: csrfToken(page.html) })).status, 303);
    const after = await stolen.get('/console');
    assert.equal(after.status, 303);
    assert.equal(after.location, '/console/login');
  });

  test('a session ends after 30 minutes without a request', async () => {
    const { agent } = await signIn(server, clock, admin);
    clock.advance(29 * 60_000);
    assert.equal((await agent.get('/console')).status, 200, 'activity restarts the idle timer');
    clock.advance(29 * 60_000);
    assert.equal((await agent.get('/console')).status, 200);
    clock.advance(30 * 60_000 + 1000);
    assert.equal((await agent.get('/console')).status, 303);
  });

  test('a session ends 12 hours after sign-in however busy', async () => {
    const { agent } = await signIn(server, clock, admin);
    for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
      clock.advance(20 * 60_000);
      assert.equal((await agent.get('/console')).status, 200, `after ${minutes + 20} minutes`);
    }
    clock.advance(21 * 60_000);
    assert.equal((await agent.get('/console')).status, 303);
  });
});

describe('an https AUTH_URL', () => {
  test('the session cookie is __Host- prefixed and Secure', async () => {
    const secureClock = new ManualClock();
    const secure = await startTestServer({ AUTH_URL: 'https://console.example.com' }, { clock: secureClock, inProcess: true });
    try {
      const org = (await provisionTenant(secure.ctx, { name: 'Secure' })).organisationId;
      const { inviteUrl } = await inviteConsoleUser(secure.ctx.db, { organisationId: org, email: 'secure@customer.example', role: 'admin', invitedBy: null }, secure.config.authUrl, secureClock.now());
      assert.match(inviteUrl, /^https:\/\/console\.example\.com\/console\/invitations\//);
      const agent = new ConsoleAgent(secure);
      const path = new URL(inviteUrl).pathname;
      const enrol = await agent.submit(path, path, { password: 'secure password' });
      const done = await agent.request('POST', `${path}/code`, { csrf_token: csrfToken(enrol.html), code: await totpCode(testId(enrol.html, 'totp-secret'), secureClock) });
      const cookie = done.headers.getSetCookie().find((c) => c.startsWith('__Host-wfs_console='));
      assert.ok(cookie, done.headers.getSetCookie().join(' | '));
      assert.match(cookie, /; Secure/);
      assert.match(cookie, /Path=\//);
      assert.doesNotMatch(cookie, /Domain=/);
    } finally {
      await secure.close();
    }
  });
});

test('console pages send a strict CSP with a nonce and load nothing from another origin', async () => {
  const page = await new ConsoleAgent(server).get('/console/login');
  const csp = page.headers.get('content-security-policy') ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  assert.ok(nonce, csp);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /default-src 'none'/);
  assert.ok(page.html.includes(`nonce="${nonce}"`));
  for (const [, url] of page.html.matchAll(/(?:src|href)="([^"]+)"/g)) assert.ok(url?.startsWith('/') || url?.startsWith('#'), url);
  assert.equal(page.headers.get('cache-control'), 'no-store');
  const css = await server.fetch(`${server.baseUrl}/console/assets/console.css`);
  assert.equal(css.status, 200);
  assert.match(css.headers.get('content-type') ?? '', /text\/css/);
});

test('an unknown console address is an HTML page, and sessions that ended unseen are cleared at the next sign-in', async () => {
  const missing = await new ConsoleAgent(server).get('/console/no-such-page');
  assert.equal(missing.status, 404);
  assert.match(missing.headers.get('content-type') ?? '', /^text\/html/);
  const { id } = await server.ctx.db.selectFrom('console_users').select('id').where('email', '=', admin.email).executeTakeFirstOrThrow();
  await signIn(server, clock, admin);
  clock.advance(31 * 60_000);
  await signIn(server, clock, admin);
  const sessions = await server.ctx.db.selectFrom('console_sessions').select('last_seen_at').where('user_id', '=', id).execute();
  assert.deepEqual(sessions.filter((s) => clock.now() - s.last_seen_at > 30 * 60_000), []);
});

test('a session lives in the database: another instance accepts it, and signing out there ends it here', async () => {
  const second = await startTestServer({ DATABASE_URL: server.config.databaseUrl }, { clock, inProcess: true });
  try {
    const { agent } = await signIn(server, clock, admin);
    const there = new ConsoleAgent(second);
    for (const [name, value] of agent.cookies) there.cookies.set(name, value);
    const page = await there.get('/console');
    assert.equal(page.status, 200);
    assert.equal((await there.request('POST', '/console/sign-out', { csrf_token: csrfToken(page.html) })).status, 303);
    assert.equal((await agent.get('/console')).status, 303);
  } finally {
    await second.close();
  }
});
