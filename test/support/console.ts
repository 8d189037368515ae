// The console as a browser without JavaScript uses it, over plain HTTP (in process when the server
// answers in process): a cookie jar, forms posted form-encoded with the page's CSRF token, redirects
// not followed (the tests read them). TOTP codes are computed with otplib at the server's
// ManualClock, which the tests move a step (30 s) between codes, since the console accepts each
// step once.
import assert from 'node:assert/strict';
import { generate } from 'otplib';
import type { ManualClock } from '../../src/platform/clock.ts';
import type { TestServer } from './server.ts';
import { unescapeHtml } from './login.ts';
import { inviteConsoleUser } from '../../src/console/people.ts';
import type { ConsoleRole } from '../../src/console/tables.ts';

export interface PageResponse {
  status: number;
  html: string;
  location: string | null;
  headers: Headers;
}

export class ConsoleAgent {
  readonly #server: TestServer;
  readonly cookies = new Map<string, string>();

  constructor(server: TestServer) {
    this.#server = server;
  }

  #absorb(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<PageResponse> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const url = path.startsWith('http') ? path : `${this.#server.baseUrl}${path}`;
    const response = await this.#server.fetch(url, { method, headers, redirect: 'manual', ...(form ? { body: new URLSearchParams(form).toString() } : {}) });
    this.#absorb(response);
    return { status: response.status, html: await response.text(), location: response.headers.get('location'), headers: response.headers };
  }

  get(path: string): Promise<PageResponse> {
    return this.request('GET', path);
  }

  /** Posts `fields` with the CSRF token of the page at `formPage` (fetched first), as a browser would. */
  async submit(formPage: string, action: string, fields: Record<string, string> = {}): Promise<PageResponse> {
    const page = await this.get(formPage);
    assert.equal(page.status, 200, `form page ${formPage}: ${page.status}`);
    return this.request('POST', action, { csrf_token: csrfToken(page.html), ...fields });
  }

  /** The session cookie's value (the console's own cookie), if any. */
  session(): string | undefined {
    return this.cookies.get('wfs_console') ?? this.cookies.get('__Host-wfs_console');
  }
}

export function csrfToken(html: string): string {
  const match = /name="csrf_token" value="([^"]*)"/.exec(html);
  assert.ok(match, 'the page has a CSRF token');
  return unescapeHtml(match[1] ?? '');
}

export function testId(html: string, id: string): string {
  const match = new RegExp(`data-testid="${id}"[^>]*>([^<]*)<`).exec(html);
  assert.ok(match, `the page shows data-testid=${id}`);
  return unescapeHtml(match[1] ?? '').trim();
}

export async function totpCode(secret: string, clock: ManualClock): Promise<string> {
  return generate({ secret, epoch: Math.floor(clock.now() / 1000) });
}

/** Moves the clock to the next 30-second step, so the next code has not been used yet. */
export function nextStep(clock: ManualClock): void {
  clock.advance(30_000);
}

export interface ConsolePerson {
  email: string;
  password: string;
  totpSecret: string;
  agent: ConsoleAgent;
}

let people = 0;

/** Invites (as the operator), accepts the invitation over HTTP and returns the person signed in. */
export async function enrolPerson(server: TestServer, clock: ManualClock, organisationId: string, role: ConsoleRole = 'admin'): Promise<ConsolePerson> {
  people += 1;
  const email = `person${people}-${Date.now()}@customer.example`;
  const password = `correct horse battery ${people}`;
  const { inviteUrl } = await inviteConsoleUser(server.ctx.db, { organisationId, email, role, invitedBy: null }, server.config.authUrl, clock.now());
  const agent = new ConsoleAgent(server);
  const enrol = await agent.submit(inviteUrl, inviteUrl, { password });
  assert.equal(enrol.status, 200);
  const totpSecret = testId(enrol.html, 'totp-secret');
  const done = await agent.request('POST', `${inviteUrl}/code`, { csrf_token: csrfToken(enrol.html), code: await totpCode(totpSecret, clock) });
  assert.equal(done.status, 303, done.html);
  return { email, password, totpSecret, agent };
}

/** Signs in with email, password and a fresh code; returns the answer to the code step. */
export async function signIn(server: TestServer, clock: ManualClock, person: Pick<ConsolePerson, 'email' | 'password' | 'totpSecret'>, agent = new ConsoleAgent(server)): Promise<{ agent: ConsoleAgent; answer: PageResponse }> {
  const first = await agent.submit('/console/login', '/console/login', { email: person.email, password: person.password });
  assert.equal(first.status, 303, first.html);
  nextStep(clock);
  const answer = await agent.submit('/console/login/code', '/console/login/code', { code: await totpCode(person.totpSecret, clock) });
  return { agent, answer };
}
