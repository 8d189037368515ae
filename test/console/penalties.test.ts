// Console sign-in penalties over plain HTTP (CONTRACT §2, §6): failures count per account and address,
// so one organisation's admin cannot lift the penalty on another's person with its own step-ups; an
// unknown email is penalised under its own key with the same answers; one address trying many emails
// meets a counter of its own that no success resets. Failed sign-ins of a known account are in its
// organisation's audit log, and so is the start of each penalty, once (refused attempts write nothing).
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock.ts';
import { ADDRESS_FAILURES_BEFORE_PENALTY } from '../../src/console/sign-in-penalties.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { provisionTenant } from '../support/tenants.ts';
import { ConsoleAgent, enrolPerson, nextStep, signIn, totpCode, type ConsolePerson } from '../support/console.ts';

const clock = new ManualClock(Date.parse('2026-11-25T09:00:00Z'));
let server: TestServer;
let victimOrg: string;
let attackerOrg: string;
let attacker: ConsolePerson;
const WRONG_PASSWORD = 'not the password at all';

before(async () => {
  server = await startTestServer({}, { clock, inProcess: true });
  victimOrg = (await provisionTenant(server.ctx, { name: 'Victim' })).organisationId;
  attackerOrg = (await provisionTenant(server.ctx, { name: 'Attacker' })).organisationId;
  attacker = await enrolPerson(server, clock, attackerOrg);
});
after(() => server.close());

// Every test starts after every failure window and penalty record of the last one (the longest lives
// 15 minutes past a 15-minute penalty), with the attacker signed in afresh.
beforeEach(async () => {
  clock.advance(31 * 60_000);
  const { agent, answer } = await signIn(server, clock, attacker);
  assert.equal(answer.status, 303);
  attacker.agent = agent;
});

async function guessPassword(email: string): Promise<number> {
  return (await new ConsoleAgent(server).submit('/console/login', '/console/login', { email, password: WRONG_PASSWORD })).status;
}

/** The attacker confirms its own password and code: a success of its own account. */
async function attackerStepsUp(): Promise<void> {
  nextStep(clock);
  const answer = await attacker.agent.submit('/console/step-up', '/console/step-up', { password: attacker.password, code: await totpCode(attacker.totpSecret, clock), next: '/console' });
  assert.equal(answer.status, 303, answer.html);
}

async function wrongCode(person: ConsolePerson): Promise<string> {
  return (await totpCode(person.totpSecret, clock)) === '000000' ? '111111' : '000000';
}

async function signInEntries(email: string) {
  return server.ctx.db
    .selectFrom('audit_log')
    .select(['organisation_id', 'outcome', 'detail', 'address', 'context'])
    .where('event', '=', 'console_sign_in')
    .where('actor_email', '=', email)
    .orderBy('at').orderBy('id')
    .execute();
}

describe('penalties per account and address', () => {
  test('a success of another organisation\'s account does not lift the penalty on a person\'s password', async () => {
    const victim = await enrolPerson(server, clock, victimOrg);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await guessPassword(victim.email));
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
    await attackerStepsUp();
    // The 1 s penalty has lapsed; its record lives on, so the next guess starts a 2 s one. The email
    // counts as sign-in looks it up: white space around it and capitals make no other account.
    const typed = ` ${victim.email.toUpperCase()} `;
    assert.deepEqual([await guessPassword(typed), await guessPassword(typed)], [401, 429]);
    clock.advance(10_000);
    assert.equal((await signIn(server, clock, victim)).answer.status, 303, 'the person\'s own sign-in goes ahead');
    assert.deepEqual([await guessPassword(victim.email), await guessPassword(victim.email)], [401, 401], 'and clears its penalty');
  });

  test('a success of another organisation\'s account does not lift the penalty on a person\'s code', async () => {
    const victim = await enrolPerson(server, clock, victimOrg);
    const thief = new ConsoleAgent(server);
    assert.equal((await thief.submit('/console/login', '/console/login', { email: victim.email, password: victim.password })).status, 303, 'the password is known');
    const guessCode = async () => (await thief.submit('/console/login/code', '/console/login/code', { code: await wrongCode(victim) })).status;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await guessCode());
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
    await attackerStepsUp();
    assert.deepEqual([await guessCode(), await guessCode()], [401, 429]);
  });

  test('an unknown email is penalised under its own key, with the answers a known one gets', async () => {
    const known = await enrolPerson(server, clock, victimOrg);
    const answers: Record<string, { statuses: number[]; message: boolean; retryAfter: string | null }> = {};
    for (const email of [known.email, `nobody-${Date.now()}@customer.example`]) {
      const agent = new ConsoleAgent(server);
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 6; i++) {
        last = await agent.submit('/console/login', '/console/login', { email, password: WRONG_PASSWORD });
        statuses.push(last.status);
        if (i === 0) assert.match(last.html, /The email or password is not correct\./);
      }
      answers[email === known.email ? 'known' : 'unknown'] = { statuses, message: /Too many failed attempts/.test(last?.html ?? ''), retryAfter: last?.headers.get('retry-after') ?? null };
    }
    assert.deepEqual(answers.known, { statuses: [401, 401, 401, 401, 401, 429], message: true, retryAfter: '1' });
    assert.deepEqual(answers.unknown, answers.known);
  });
});

describe('the audit log', () => {
  test('failed sign-ins of a person are in its organisation\'s log, with the start of the penalty once', async () => {
    const victim = await enrolPerson(server, clock, victimOrg);
    for (let i = 0; i < 8; i++) await guessPassword(victim.email);
    const entries = await signInEntries(victim.email);
    assert.deepEqual(entries.map((e) => [e.organisation_id, e.outcome, e.detail]), [
      ...Array.from({ length: 5 }, () => [victimOrg, 'failure', 'bad_password']),
      [victimOrg, 'throttled', 'penalty_started'],
    ], 'the three refused attempts wrote nothing');
    assert.ok(entries.every((e) => e.address), 'with the address');
    assert.deepEqual(JSON.parse(entries[5]?.context ?? 'null'), { step: 'password', retryAfter: 1 });

    const page = await victim.agent.get('/console/audit?type=console_sign_in');
    assert.equal(page.status, 200);
    assert.match(page.html, new RegExp(`${victim.email.replace(/[.]/g, '\\.')}[\\s\\S]*bad_password`));
    assert.match(page.html, /penalty_started/);
    assert.ok(!(await attacker.agent.get('/console/audit')).html.includes(victim.email), 'nothing in the attacker\'s organisation');
  });

  test('a wrong code starts its penalty in the person\'s log once too', async () => {
    const victim = await enrolPerson(server, clock, victimOrg);
    const thief = new ConsoleAgent(server);
    await thief.submit('/console/login', '/console/login', { email: victim.email, password: victim.password });
    for (let i = 0; i < 7; i++) await thief.submit('/console/login/code', '/console/login/code', { code: await wrongCode(victim) });
    const entries = await signInEntries(victim.email);
    assert.deepEqual(entries.map((e) => [e.organisation_id, e.outcome, e.detail]), [
      ...Array.from({ length: 5 }, () => [victimOrg, 'failure', 'bad_code']),
      [victimOrg, 'throttled', 'penalty_started'],
    ]);
  });

  test('failed sign-ins of an unknown email stay out of every organisation\'s log', async () => {
    const email = `unknown-${Date.now()}@customer.example`;
    for (let i = 0; i < 6; i++) await guessPassword(email);
    const rows = await server.ctx.db.selectFrom('audit_log').select(['organisation_id', 'outcome', 'detail']).where('event', '=', 'console_sign_in').where('actor_kind', 'is', null).where('at', '=', clock.now()).orderBy('id').execute();
    assert.deepEqual(rows.map((row) => [row.organisation_id, row.outcome, row.detail]), [
      ...Array.from({ length: 5 }, () => [null, 'failure', 'bad_password']),
      [null, 'throttled', 'penalty_started'],
    ]);
  });
});

test('one address trying many emails is penalised across them, and no success lifts that', async () => {
  // The attacker's own sign-in (beforeEach) does not count: only failed passwords do.
  const statuses: number[] = [];
  for (let i = 1; i <= ADDRESS_FAILURES_BEFORE_PENALTY + 1; i++) statuses.push(await guessPassword(`spray-${i}@customer.example`));
  assert.deepEqual(statuses, [...Array.from({ length: ADDRESS_FAILURES_BEFORE_PENALTY }, () => 401), 429]);
  const started = await server.ctx.db.selectFrom('audit_log').select(['organisation_id', 'actor_kind', 'outcome']).where('detail', '=', 'address_penalty_started').execute();
  assert.deepEqual(started.map((row) => ({ ...row })), [{ organisation_id: null, actor_kind: null, outcome: 'throttled' }], 'the address\'s penalty is in no organisation\'s log');
  clock.advance(2_000);
  const { answer } = await signIn(server, clock, attacker);
  assert.equal(answer.status, 303, 'a sign-in after the penalty goes ahead');
  assert.deepEqual([await guessPassword('spray-new-1@customer.example'), await guessPassword('spray-new-2@customer.example')], [401, 429], 'but clears nothing of the address');
});
