// No request, however built, holds the event loop for more than 50 ms (CONTRACT §4), and /healthz
// answers within 50 ms while the worst bodies arrive. Each body below is the worst of its kind we
// could build for the endpoints that take it, just under the 2 MiB limit where size helps: a million
// zeros in a batch (1.5 s with the exact-decimal reviver before batches were sized first), 5,000
// valid items with the longest strings, 5,000 bad items, a huge number, a million keys, escapes,
// deep nesting, a 2 MiB form. How the hold is measured: test/support/event-loop.ts. SHOW_HOLDS=1
// prints every measurement instead of asserting.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { Agent, get, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { useCompanyServer } from '../support/company.ts';
import { addDepartment, addEmployee } from '../timeclock/fixtures.ts';
import { bearer } from '../support/tenants.ts';
import { HOLD_LIMIT_MS, holdOf, measureHold } from '../support/event-loop.ts';
import { companyOfSize, emptyShifts, filled as filledTo, hostileImports } from '../support/import-bodies.ts';

const ADMIN_TOKEN = 'admin-token-for-event-loop-hold';
// A 64 MiB import takes minutes on this machine: longer than the connection's idle timeout (2 × REQUEST_TIMEOUT_MS, at least 2 minutes).
const company = useCompanyServer({ name: 'Depot', env: { ADMIN_TOKEN, REQUEST_TIMEOUT_MS: '300000' } });

const LIMIT = 2 * 1024 * 1024;

/** `head` + repeated `unit` joined by `separator` + `tail`, as long as it stays under 2 MiB. */
const filled = (head: string, unit: (i: number) => string, separator: string, tail: string) => filledTo(head, unit, separator, tail, LIMIT - 16);

/** The worst bodies for any JSON endpoint, whatever its schema. */
function hostileJson(): Record<string, Buffer> {
  return {
    'a million zeros in items': filled('{"items":[', () => '0', ',', ']}'),
    'a bare array of a million zeros': filled('[', () => '0', ',', ']'),
    'a million keys': filled('{', (i) => `"k${i}":0`, ',', '}'),
    'one 2 MiB string': filled('{"items":"', () => 'a', '', '"}'),
    'a 2 MiB number': filled('{"items":[{"amount":1', () => '1', '', '}]}'),
    'a 2 MiB run of escapes': filled('{"items":"', () => '\\u0041', '', '"}'),
    'constructor keys everywhere': filled('[', () => '{"constructor":{"a":1}}', ',', ']'),
    '100,000 nested arrays': Buffer.from('['.repeat(100_000) + ']'.repeat(100_000)),
  };
}

// The client in this process is measured with the server: node:http over one kept-alive agent, each
// answer read and dropped as it arrives, leaves a fraction of fetch's garbage for the collector.
const agent = new Agent({ keepAlive: true });

/** Sends `body` and resolves with the status once the answer has been read (a refusal may end the upload early). */
function send(path: string, body: Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    let status: number | undefined;
    const sent = request(`${company.server.baseUrl}${path}`, { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } }, (response) => {
      status = response.statusCode ?? 0;
      response.on('end', () => resolve(status ?? 0)).on('error', reject).resume();
    });
    sent.on('error', (error) => (status === undefined ? reject(error) : undefined));
    sent.end(body);
  });
}

const healthz = () => new Promise<void>((resolve, reject) => {
  get(`${company.server.baseUrl}/healthz`, { agent }, (response) => response.on('end', resolve).on('error', reject).resume()).on('error', reject);
});
after(() => agent.destroy());

async function assertCheap(name: string, path: string, body: Buffer, headers: Record<string, string>, expected?: number): Promise<void> {
  const hold = await holdOf(() => send(path, body, headers), healthz);
  if (process.env.SHOW_HOLDS) console.log([hold.maxMs, hold.probeMs, hold.wallMs, hold.probeWallMs].map((ms) => ms.toFixed(1).padStart(6)).join(' '), hold.status, path, name);
  if (expected !== undefined) assert.equal(hold.status, expected, `${name} to ${path}`);
  assert.ok(hold.status < 500, `${name} to ${path} answered ${hold.status}`);
  if (!process.env.SHOW_HOLDS) assert.ok(hold.maxMs < HOLD_LIMIT_MS, `${name} to ${path} held the event loop ${hold.maxMs.toFixed(1)} ms (${hold.wallMs.toFixed(1)} ms by the wall clock)`);
  if (!process.env.SHOW_HOLDS) assert.ok(hold.probeMs < HOLD_LIMIT_MS, `/healthz waited ${hold.probeMs.toFixed(1)} ms of work (${hold.probeWallMs.toFixed(1)} ms by the wall clock) while ${name} went to ${path}`);
}

function batchItems(count: number, item: (i: number) => object): Buffer {
  return Buffer.from(JSON.stringify({ items: Array.from({ length: count }, (_, i) => item(i)) }));
}

test('the worst batches hold the event loop under 50 ms, and /healthz answers within 50 ms meanwhile', async () => {
  const department = await addDepartment(company.server.ctx.db, company.tenant.companyId);
  const json = { 'content-type': 'application/json', ...bearer(company.token) };
  const category = (i: number) => `${i}-`.padEnd(100, 'c');
  const bodies: Array<[string, Buffer, number]> = [
    ['5,000 valid items with the longest strings (created)', batchItems(5000, (i) => ({ departmentId: department, date: '2026-11-20', kind: 'realised', amount: 123456789.12, category: category(i) })), 200],
    ['the same 5,000 items again (unchanged)', batchItems(5000, (i) => ({ departmentId: department, date: '2026-11-20', kind: 'realised', amount: 123456789.12, category: category(i) })), 200],
    ['5,000 items, each bad twice', batchItems(5000, (i) => ({ departmentId: `unknown-${i}`, date: '2026-11-20', kind: 'realised', amount: 1.001, category: category(i) })), 400],
    ['5,000 items of the wrong type', batchItems(5000, () => ({ departmentId: 1, date: 2, week: 3, kind: 4, amount: '5', category: 6 })), 400],
    ['5,000 items with unknown fields', batchItems(5000, (i) => ({ a: i, b: i, c: i, d: i, e: i, f: i })), 400],
    ['5,001 items', batchItems(5001, (i) => ({ departmentId: department, date: '2026-11-21', kind: 'realised', amount: 1, category: category(i) })), 400],
    ['5,000 items each with 60 zeros', batchItems(5000, () => ({ departmentId: department, x: Array(60).fill(0) })), 400],
    ...Object.entries(hostileJson()).map(([name, body]): [string, Buffer, number] => [name, body, 400]),
  ];
  for (const path of ['/api/v1/company/revenue', '/api/v1/company/wage-budget']) {
    for (const [name, body, status] of bodies) {
      const expected = path.endsWith('wage-budget') && status === 200 ? 400 : status;
      await assertCheap(name, path, body, json, expected);
    }
  }
});

test('the worst bodies to the other JSON write endpoints hold the event loop under 50 ms', async () => {
  const person = await addEmployee(company.server.ctx.db, company.tenant);
  const json = { 'content-type': 'application/json' };
  const longest = { eventId: randomUUID(), badgeId: person.badgeId, companyId: company.tenant.companyId, type: 'clock_in', occurredAt: new Date(Date.now() - 60_000).toISOString(), source: 'terminal', deviceId: 'd'.repeat(200), location: { latitude: 52.1, longitude: 4.3 } };
  await assertCheap('a valid event with the longest strings', '/api/v1/timeclock/events', Buffer.from(JSON.stringify(longest)), { ...json, ...bearer(company.token) }, 200);
  // ajv-formats' date-time splits its text on every "t" and space: 2 MiB of them were a million pieces.
  const splitBait = (head: string) => filled(`{${head}"`, () => 't ', '', '"}');
  await assertCheap('an occurredAt of 2 MiB of "t "', '/api/v1/timeclock/events', splitBait(`"eventId":"${randomUUID()}","badgeId":"${person.badgeId}","type":"clock_in","source":"terminal","occurredAt":`), { ...json, ...bearer(company.token) }, 400);
  await assertCheap('a replay from of 2 MiB of "t "', '/api/v1/company/webhooks/whe_none/replay', splitBait('"to":"2026-11-20T10:00:00Z","from":'), { ...json, ...bearer(company.token) });
  const targets: Array<[string, Record<string, string>]> = [
    ['/api/v1/timeclock/events', bearer(company.token)],
    ['/api/v1/company/webhooks', bearer(company.token)],
    ['/api/v1/iam/oauth/token', {}],
    ['/api/v1/iam/oauth/revoke', {}],
    ['/api/v1/admin/organisations', bearer(ADMIN_TOKEN)],
    ['/api/v1/admin/api-clients', bearer(ADMIN_TOKEN)],
  ];
  for (const [path, auth] of targets) {
    for (const [name, body] of Object.entries(hostileJson())) await assertCheap(name, path, body, { ...json, ...auth });
  }
});

test('the worst import documents hold the event loop under 50 ms: a whole company, many keys, huge strings, deep nesting', async () => {
  const path = `/api/v1/admin/companies/${company.tenant.companyId}/import`;
  const headers = { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) };
  // About 430 employees and 8,600 shifts: read in a worker, then planned and written in slices.
  const whole = companyOfSize(LIMIT);
  await assertCheap('a company of 2 MiB (created)', path, whole, headers, 200);
  await assertCheap('the same company again (unchanged)', path, whole, headers, 200);
  // Empty shifts in an eighth of the limit: half a million problems (~30 MB of answer, some thirty
  // messages from the worker) prove the streamed answer as 2 MiB's four million did, in an eighth of
  // the time; gathered on this thread, that answer alone would take well over 50 ms.
  const imports = { ...hostileImports(LIMIT), 'many empty shifts': emptyShifts(LIMIT / 8) };
  for (const [name, body] of Object.entries({ ...hostileJson(), ...imports })) await assertCheap(name, path, body, headers, 400);
});

// Opt-in (minutes each): LARGE_IMPORTS=16,64 sends a company of that many MiB, created then re-imported,
// and prints the holds; the 64 MiB body is the operator import's limit. The hold is the server's, so the
// document is built and sent by other processes (a Node script writes it to a file, curl sends it): a
// 64 MiB document built in this process would leave hundreds of MB of strings for this process's
// collector inside the window measured.
/** Writes a company document of `bytes` to a file, from a child process. */
function writeCompanyFile(bytes: number, prefix: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'wfs-import-')), `${prefix}company.json`);
  const script = `import { writeFileSync } from 'node:fs'; import { companyOfSize } from ${JSON.stringify(new URL('../support/import-bodies.ts', import.meta.url).href)}; writeFileSync(${JSON.stringify(file)}, companyOfSize(${bytes}, ${JSON.stringify(prefix)}));`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
  return file;
}

/** POSTs `file` with curl (no time limit) and resolves with the status, its answer read and dropped. */
function sendFileWithCurl(path: string, file: string, headers: Record<string, string>): Promise<number> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', '--data-binary', `@${file}`, ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]), `${company.server.baseUrl}${path}`];
  return new Promise((resolve, reject) => {
    execFile('curl', args, { maxBuffer: 1024, encoding: 'utf8' }, (error, stdout) => (error ? reject(new Error(`curl failed: ${error.message}`)) : resolve(Number(stdout))));
  });
}

/**
 * GETs `url` again and again from a child process, over one kept-alive connection, until stopped:
 * resolves with the slowest answer's wall-clock time in ms. In this process, the probe's own garbage
 * (tens of thousands of fetches over a minute) would be collected inside the window measured.
 */
function probeFromAnotherProcess(url: string): { stop: () => Promise<number> } {
  const script = `import { get, Agent } from 'node:http';
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let worst = 0; let running = true;
    process.stdin.on('end', () => { running = false; }).resume();
    const once = () => new Promise((resolve, reject) => { const started = performance.now(); get(${JSON.stringify(url)}, { agent }, (response) => { response.resume(); response.on('end', () => { worst = Math.max(worst, performance.now() - started); resolve(); }); }).on('error', reject); });
    while (running) { await once(); await new Promise((resolve) => setTimeout(resolve, 5)); }
    agent.destroy(); process.stdout.write(String(worst));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const exited = new Promise<number>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(Number(output)) : reject(new Error(`the probe exited with ${code}`)))));
  return { stop: () => { child.stdin.end(); return exited; } };
}

const LARGE_IMPORTS = (process.env.LARGE_IMPORTS ?? '').split(',').filter(Boolean).map(Number);
test('large import documents hold the event loop under 50 ms', { skip: LARGE_IMPORTS.length === 0 && 'set LARGE_IMPORTS=16,64 to run' }, async () => {
  const path = `/api/v1/admin/companies/${company.tenant.companyId}/import`;
  const headers = { 'content-type': 'application/json', ...bearer(ADMIN_TOKEN) };
  for (const mib of LARGE_IMPORTS) {
    // Up to 64 MiB in all: the last megabytes go to the wrapper and a few hundred bytes of slack.
    const file = writeCompanyFile(Math.min(mib * 1024 * 1024, 64 * 1024 * 1024 - 4096), `m${mib}-`);
    try {
      for (const round of ['created', 'unchanged']) {
        const started = performance.now();
        const probe = probeFromAnotherProcess(`${company.server.baseUrl}/healthz`);
        const hold = await measureHold(() => sendFileWithCurl(path, file, headers));
        const slowestProbe = await probe.stop();
        const seconds = ((performance.now() - started) / 1000).toFixed(0);
        console.log(`${mib} MiB ${round}: ${hold.maxMs.toFixed(1)} ms CPU, ${hold.wallMs.toFixed(1)} ms wall, /healthz within ${slowestProbe.toFixed(1)} ms, status ${hold.status}, ${seconds} s, RSS ${(process.memoryUsage.rss() / 2 ** 20).toFixed(0)} MiB`);
        assert.equal(hold.status, 200);
        assert.ok(hold.maxMs < HOLD_LIMIT_MS, `${mib} MiB ${round} held the event loop ${hold.maxMs.toFixed(1)} ms`);
      }
    } finally {
      rmSync(dirname(file), { recursive: true, force: true });
    }
  }
});

test('2 MiB forms to the token, revocation and login endpoints hold the event loop under 50 ms', async () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const forms: Record<string, Buffer> = {
    'a million fields': filled('', () => 'a=1', '&', ''),
    'one 2 MiB field': filled('client_id=', () => 'a', '', ''),
    'a 2 MiB run of percent escapes': filled('client_id=', () => '%41', '', ''),
  };
  for (const path of ['/api/v1/iam/oauth/token', '/api/v1/iam/oauth/revoke', '/oauth/authorize']) {
    for (const [name, body] of Object.entries(forms)) await assertCheap(name, path, body, form);
  }
});
