// The cached-answer lane against Fastify: the same requests, on one keep-alive connection each, to
// two servers on one database and one clock — the lane on, the lane off — must get the same status,
// the same headers in the same order (Date and a generated X-Request-Id's value aside) and the same
// bytes. Each request goes twice, so the second can come through the lane (a connection's first
// request always goes through Fastify, which verifies its token). Other tests prove the lane really
// answers, so the comparison cannot pass with the lane idle.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../src/platform/clock.ts';
import { CachedAnswerLane, laneCanAnswer } from '../../src/platform/cached-answer-lane.ts';
import { cachedResponse } from '../../src/platform/response-cache.ts';
import { startCompanyServer, signedInCompany, type CompanyServer } from '../support/company.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { mintTokens } from '../support/tenants.ts';
import { baseDocument, dayFromToday, shift } from '../company/fixtures.ts';

const METRICS_TOKEN = 'lane-metrics-token-0123456789abcdef';
const CONFIGURATION = '/api/v1/company/configuration';
const FEED = '/api/v1/feeds/timetable';

interface Answer {
  status: number;
  /** Header names and values in the order sent. */
  headers: string[];
  body: Buffer;
}

/** One server reached over one keep-alive connection, counting the answers its lane gave. */
interface Side {
  server: TestServer;
  agent: Agent;
  laneAnswers: string[];
}

function side(server: TestServer, laneAnswers: string[]): Side {
  return { server, agent: new Agent({ keepAlive: true, maxSockets: 1 }), laneAnswers };
}

function send(to: Side, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port: to.server.config.port, path, method, headers, agent: to.agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.rawHeaders, body: Buffer.concat(chunks) }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** The headers as compared: Date's value and a generated request id's value masked. */
function comparable(answer: Answer, incomingId: string | undefined): string[] {
  return answer.headers.map((value, i) => {
    const name = answer.headers[i - 1]?.toLowerCase();
    if (i % 2 === 1 && name === 'date') return '<date>';
    if (i % 2 === 1 && name === 'x-request-id' && value !== incomingId) return '<generated>';
    return i % 2 === 0 ? value.toLowerCase() : value;
  });
}

/** The body as compared: a problem's requestId (the X-Request-Id sent with it) masked. */
function bodyOf(answer: Answer): string {
  return answer.body.toString('latin1').replaceAll(header(answer, 'x-request-id') ?? '<none>', '<request id>');
}

function header(answer: Answer, name: string): string | undefined {
  const at = answer.headers.findIndex((value, i) => i % 2 === 0 && value.toLowerCase() === name);
  return at < 0 ? undefined : answer.headers[at + 1];
}

function fullDay() {
  const doc = baseDocument();
  for (let i = 0; i < 40; i++) doc.shifts.push(shift(`s${i}`, dayFromToday(0), { start: '08:00', end: '16:00' }));
  for (let i = 0; i < 5; i++) doc.shifts.push(shift(`t${i}`, dayFromToday(1), { start: '09:00', end: '17:00' }));
  return doc;
}

interface Pair {
  company: CompanyServer;
  lane: Side;
  fastify: Side;
  clock: ManualClock;
}

/** Two servers on one database and one clock, the lane on in the first only. */
async function startPair(env: Record<string, string> = {}): Promise<Pair> {
  const clock = new ManualClock();
  const laneAnswers: string[] = [];
  const company = await startCompanyServer({ data: fullDay(), clock, env: { METRICS_TOKEN, ...env }, cachedAnswerLane: { onAnswer: (path) => laneAnswers.push(path) } });
  // The same BASE_URL: a token's issuer is the one both accept.
  const other = await startTestServer({ ...env, METRICS_TOKEN, DATABASE_URL: company.server.config.databaseUrl, BASE_URL: company.server.baseUrl }, { clock, cachedAnswerLane: false });
  return { company, lane: side(company.server, laneAnswers), fastify: side(other, []), clock };
}

async function stopPair(pair: Pair | undefined): Promise<void> {
  if (!pair) return;
  for (const { agent } of [pair.lane, pair.fastify]) agent.destroy();
  await pair.fastify.server.close();
  await pair.company.server.close();
}

/** Sends the request to both servers (twice: the second may take the lane) and requires the same answers. */
async function same(pair: Pair, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  let last: Answer | undefined;
  for (let round = 0; round < 2; round++) {
    const viaLane = await send(pair.lane, path, headers, method);
    const viaFastify = await send(pair.fastify, path, headers, method);
    const what = `${method} ${path} ${JSON.stringify(headers).slice(0, 120)}`;
    assert.equal(viaLane.status, viaFastify.status, what);
    assert.deepEqual(comparable(viaLane, headers['x-request-id']), comparable(viaFastify, headers['x-request-id']), what);
    assert.equal(bodyOf(viaLane), bodyOf(viaFastify), `${what}: bodies differ`);
    last = viaLane;
  }
  return last as Answer;
}

/** The request-duration series of the company routes, as /metrics shows them (sums aside: times differ). */
async function durationCounts(to: Side): Promise<string[]> {
  const answer = await send(to, '/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
  return answer.body.toString().split('\n').filter((line) => line.startsWith('wfs_http_request_duration_seconds_count') && /company|feeds/.test(line));
}

/** Whether the lane answered this request within a few tries (it hands over while the company record is being re-read). */
async function answeredByLane(pair: Pair, path: string, headers: Record<string, string>): Promise<Answer | undefined> {
  for (let tries = 0; tries < 20; tries++) {
    const before = pair.lane.laneAnswers.length;
    const answer = await send(pair.lane, path, headers);
    if (pair.lane.laneAnswers.length > before) return answer;
  }
  return undefined;
}

let pair: Pair | undefined;
before(async () => {
  pair = await startPair();
});
after(() => stopPair(pair));

test('the lane and Fastify give the same answers to every kind of request', async () => {
  const p = pair as Pair;
  const auth = { authorization: `Bearer ${p.company.token}` };
  const today = dayFromToday(0);
  const answersBefore = p.lane.laneAnswers.length;
  const plain = await same(p, CONFIGURATION, auth);
  assert.equal(plain.status, 200);
  const feed = await same(p, FEED, auth);
  const etag = header(plain, 'etag') ?? '';
  for (const path of [CONFIGURATION, FEED, `${FEED}?date=${today}`, `${FEED}?date=${dayFromToday(1)}`]) {
    const variants: Record<string, string>[] = [{}, { 'accept-encoding': 'gzip, deflate, br' }, { 'accept-encoding': 'gzip' }, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'br;q=0, gzip;q=0' },
      { 'if-none-match': path === CONFIGURATION ? etag : header(feed, 'etag') ?? '' }, { 'if-none-match': '"stale"' }, { 'if-none-match': '*' },
      { 'x-request-id': 'trace-0123456789' }, { 'x-request-id': 'not valid!' }];
    for (const extra of variants) {
      await same(p, path, { ...auth, ...extra });
    }
  }
  // Compressed representations are made once asked for: asked again, they are ready for the lane.
  await same(p, FEED, { ...auth, 'accept-encoding': 'gzip, deflate, br', 'if-none-match': `${(header(feed, 'etag') ?? '').slice(0, -1)}-br"` });
  for (const path of [`${CONFIGURATION}/`, `${CONFIGURATION}?`, `${CONFIGURATION}?unknown=1`, '/api/v1/company/%63onfiguration', `${FEED}?date=2026-02-30`, `${FEED}?date=${today}&date=${today}`,
    `${FEED}?date=${today}&x=1`, `${FEED}?date=2099-01-01`, `${FEED}?date=${today.replaceAll('-', '%2D')}`, `${FEED}?`]) {
    await same(p, path, auth);
  }
  await same(p, CONFIGURATION, auth, 'HEAD');
  await same(p, CONFIGURATION, {});
  await same(p, CONFIGURATION, { authorization: 'Bearer not-a-token' });
  await same(p, CONFIGURATION, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
  // Another valid token on the same connection: Fastify verifies it first, then the lane may answer.
  const other = await mintTokens(p.company.server.ctx, p.company.tenant);
  await same(p, CONFIGURATION, { authorization: `Bearer ${other.id_token}` });
  await same(p, CONFIGURATION, auth);
  assert.ok(p.lane.laneAnswers.length > answersBefore, 'the lane answered none of them');
  assert.equal(p.fastify.laneAnswers.length, 0);
  // The same answers observed, by route and status, whichever path served them.
  assert.deepEqual(await durationCounts(p.lane), await durationCounts(p.fastify));
});

test('a URL whose escapes decode to no UTF-8 text goes to Fastify, which refuses it: 400 invalid_character, the same answer either way', async () => {
  const p = pair as Pair;
  const auth = { authorization: `Bearer ${p.company.token}` };
  const answersBefore = p.lane.laneAnswers.length;
  for (const path of [`${FEED}?date=%ED%A0%80`, `${FEED}?date=${dayFromToday(0)}&x=%C0%80`, `${CONFIGURATION}?x=%F0`, '/api/v1/company/configurat%ED%B0%80ion']) {
    const answer = await same(p, path, auth);
    assert.equal(answer.status, 400, path);
    assert.equal((JSON.parse(answer.body.toString()) as { code: string }).code, 'invalid_character', path);
  }
  assert.equal(p.lane.laneAnswers.length, answersBefore);
});

test('the lane answers a cached read, a compressed one and a revalidation', async () => {
  const p = pair as Pair;
  const auth = { authorization: `Bearer ${p.company.token}` };
  const plain = await answeredByLane(p, CONFIGURATION, auth);
  assert.ok(plain);
  assert.equal(plain.status, 200);
  const br = await answeredByLane(p, FEED, { ...auth, 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br && header(br, 'content-encoding'), 'br');
  const revalidated = await answeredByLane(p, CONFIGURATION, { ...auth, 'if-none-match': header(plain, 'etag') ?? '' });
  assert.equal(revalidated?.status, 304);
  assert.deepEqual(new Set(p.lane.laneAnswers), new Set([CONFIGURATION, FEED]));
});

test('a revoked token, then an expired one, are refused alike: the lane hands them to Fastify', async () => {
  const p = pair as Pair;
  const revoked = await mintTokens(p.company.server.ctx, p.company.tenant);
  const headers = { authorization: `Bearer ${revoked.id_token}` };
  assert.ok(await answeredByLane(p, CONFIGURATION, headers));
  const grantId = (JSON.parse(Buffer.from(revoked.id_token.split('.')[1] ?? '', 'base64url').toString()) as { sid: string }).sid;
  for (const { server } of [p.lane, p.fastify]) server.ctx.revocations.remember(grantId);
  assert.equal((await same(p, CONFIGURATION, headers)).status, 401);

  const auth = { authorization: `Bearer ${p.company.token}` };
  assert.ok(await answeredByLane(p, CONFIGURATION, auth));
  p.clock.advance((p.company.server.config.accessTokenTtl + p.company.server.config.clockSkewSeconds + 1) * 1000);
  const answersBefore = p.lane.laneAnswers.length;
  assert.equal((await same(p, CONFIGURATION, auth)).status, 401);
  assert.equal(p.lane.laneAnswers.length, answersBefore);
});

test('over the rate limit, both count and refuse alike, and the lane answers nothing', async () => {
  const limited = await startPair({ RATE_LIMIT_API_PER_MINUTE: '4' });
  try {
    const auth = { authorization: `Bearer ${limited.company.token}` };
    // Requests 1–4 within the limit (the second and fourth may take the lane), 5 and 6 over it.
    await same(limited, CONFIGURATION, auth);
    await same(limited, CONFIGURATION, auth);
    const answersWithin = limited.lane.laneAnswers.length;
    const over = await same(limited, CONFIGURATION, auth);
    assert.equal(over.status, 429);
    assert.equal(header(over, 'x-ratelimit-remaining'), '0');
    assert.equal(limited.lane.laneAnswers.length, answersWithin);
  } finally {
    await stopPair(limited);
  }
});

/** A log stream that keeps the lines. */
function collectingLog(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

/** Ten configuration reads over one connection of a fresh server; the paths its lane answered. */
async function laneAnswersOfTenReads(env: Record<string, string>, logStream?: Writable): Promise<string[]> {
  const answers: string[] = [];
  const server = await startTestServer(env, { logStream, cachedAnswerLane: { onAnswer: (path) => answers.push(path) } });
  const to = side(server, answers);
  try {
    const { token } = await signedInCompany(server.ctx, { data: fullDay() });
    for (let i = 0; i < 10; i++) assert.equal((await send(to, CONFIGURATION, { authorization: `Bearer ${token}` })).status, 200);
    return answers;
  } finally {
    to.agent.destroy();
    await server.close();
  }
}

test('with REDIS_URL (the count is a promise) the lane answers nothing', async () => {
  assert.deepEqual(await laneAnswersOfTenReads({ REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }), []);
});

for (const [level, engaged] of [['info', false], ['warn', true]] as const) {
  test(`with LOG_LEVEL=${level} the lane ${engaged ? 'answers' : 'stays out, and Fastify logs every request'}`, async () => {
    const log = collectingLog();
    const answers = await laneAnswersOfTenReads({ LOG_LEVEL: level }, log.stream);
    if (engaged) assert.ok(answers.length > 0, 'the lane answered none');
    else {
      assert.deepEqual(answers, []);
      assert.equal(log.lines.filter((line) => line.includes('"incoming request"') && line.includes(CONFIGURATION)).length, 10);
      assert.equal(log.lines.filter((line) => line.includes('"request completed"')).length, 10);
    }
  });
}

test('the app stands a lane in front of Fastify only where one could answer: no logger or one above info, and the API count in memory', () => {
  assert.equal(laneCanAnswer({ logLevel: undefined, sharedRateLimit: false }), true);
  assert.equal(laneCanAnswer({ logLevel: 'warn', sharedRateLimit: false }), true);
  assert.equal(laneCanAnswer({ logLevel: 'info', sharedRateLimit: false }), false);
  assert.equal(laneCanAnswer({ logLevel: 'debug', sharedRateLimit: false }), false);
  assert.equal(laneCanAnswer({ logLevel: 'warn', sharedRateLimit: true }), false);
});

test('the lane refuses to stand in front of an HTTPS or HTTP/2 server (it writes plain HTTP/1.1 answers)', () => {
  const lane = new CachedAnswerLane({ requestId: () => 'request-id-0001', observe: undefined });
  const settings = { keepAliveTimeout: 5000, requestTimeout: 0, connectionTimeout: 0 };
  assert.throws(() => lane.serverFactory(() => undefined, { ...settings, https: {} }), /plain HTTP\/1\.1/);
  assert.throws(() => lane.serverFactory(() => undefined, { ...settings, http2: true }), /plain HTTP\/1\.1/);
});

test('once Fastify starts closing, the lane hands every request over (Fastify answers 503 then)', async () => {
  let preClose: ((done: () => void) => void) | undefined;
  const lane = new CachedAnswerLane({ requestId: () => 'request-id-0001', observe: undefined });
  lane.attach({ log: {}, addHook: (_name, hook) => (preClose = hook) });
  lane.scope<string>({ principal: () => 'anyone', count: () => [] })(CONFIGURATION, () => cachedResponse('{}'));
  const handedOver: string[] = [];
  const server = lane.serverFactory((request, response) => {
    handedOver.push(request.url ?? '');
    response.writeHead(503).end();
  }, { keepAliveTimeout: 5000, requestTimeout: 0, connectionTimeout: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const status = () => fetch(`http://127.0.0.1:${port}${CONFIGURATION}`).then((answer) => answer.status);
  try {
    assert.equal(await status(), 200);
    assert.deepEqual(handedOver, []);
    preClose?.(() => undefined);
    assert.equal(await status(), 503);
    assert.deepEqual(handedOver, [CONFIGURATION]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
