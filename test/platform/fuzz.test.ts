// Hostile input as a standing part of the suite (issue 11, "beyond the list"): every operation of the
// served OpenAPI document is driven with generated path parameters, queries, bodies and headers —
// mostly shaped by the operation's own schemas, often broken (NUL, lone surrogates, wrong types,
// truncated or deep JSON, other content types and charsets, no token, a forged one, the wrong kind)
// — and every answer must be: no 5xx; an X-Request-Id; an error in the endpoint's documented shape
// (problem+json with the same requestId, RFC 6749 JSON on the OAuth endpoints, an HTML page on the
// browser pages); and no event-loop hold over 50 ms (test/support/event-loop.ts).
//
// Seeded (FUZZ_SEED, default fixed) and bounded (FUZZ_RUNS per operation, default 16), so a run takes
// well under 30 s per database and a failure repeats: the message names the seed, the operation and
// the request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { useCompanyServer } from '../support/company.ts';
import { addDepartment, addEmployee } from '../timeclock/fixtures.ts';
import { HOLD_LIMIT_MS, holdOf } from '../support/event-loop.ts';

const ADMIN_TOKEN = 'admin-token-for-the-fuzz-test';
const METRICS_TOKEN = 'metrics-token-for-the-fuzz-test';
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 16);

const company = useCompanyServer({ name: 'Fuzz', env: { ADMIN_TOKEN, METRICS_TOKEN }, inProcess: true });

type Schema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; required?: string[] };

interface Operation {
  method: string;
  path: string;
  parameters: Array<{ in: string; name: string; schema?: Schema }>;
  body?: { contentTypes: string[]; schema: Schema };
  /** The security schemes the operation accepts (idToken, adminToken, …). */
  schemes: string[];
  /** A browser page: its answers, errors included, are HTML. */
  html: boolean;
}

interface FuzzRequest {
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** Strings a client can send and the databases cannot all store, beside ordinary ones. */
const hostileString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udbff', '\udc00', '😀', '../../etc/passwd', '<script>', "' or 1=1 --", '%00', '9'.repeat(40), ''),
);

const hostileNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 0.001, 1.005));

const anyValue = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));

/** Values shaped by `schema` (its formats, patterns, enums), with any part now and then replaced by anything. */
function valueOf(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return anyValue;
  const shaped = shapedValue(schema, depth);
  return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: anyValue });
}

function shapedValue(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (variants) return fc.oneof(...variants.map((variant) => valueOf(variant, depth + 1)));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  return fc.oneof(...types.map((type) => typedValue(type, schema, depth)));
}

function typedValue(type: string, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'object': {
      const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, valueOf(property, depth + 1)]));
      return fc.record(properties, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
    }
    case 'array':
      return fc.array(valueOf(schema.items, depth + 1), { maxLength: 4 });
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.oneof(fc.integer({ min: -5, max: 2000 }), hostileNumber);
    case 'number':
      return fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), hostileNumber);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return anyValue;
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.oneof(fc.uuid(), fc.uuid().map((id) => `urn:uuid:${id.toUpperCase()}`));
  if (schema.format === 'date-time') return fc.date({ min: new Date('1999-01-01'), max: new Date('2101-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
  if (schema.format === 'uri') return fc.constantFrom('https://example.com/hook', 'http://127.0.0.1:1/x', 'http://169.254.169.254/latest', 'file:///etc/passwd', 'not a url');
  if (typeof schema.pattern === 'string') return matchingOrHostile(schema.pattern);
  return hostileString;
}

/** Strings matching `pattern`, or hostile ones where fast-check cannot generate from it (a lookahead). */
function matchingOrHostile(pattern: string): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern), { maxLength: 30 });
  } catch {
    return hostileString;
  }
}

/** percent-encodes `text`, lone surrogates too (as their CESU-8 bytes, which no decoder accepts). */
function encode(text: string): string {
  return Array.from(text, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      const unit = char.charCodeAt(0);
      return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    }
  }).join('');
}

/** The body as the text sent: JSON (whatever JSON.stringify makes of it, lone surrogates as escapes), a form, or broken. */
function bodyText(value: unknown, shape: 'json' | 'form' | 'truncated' | 'deep' | 'garbage'): string | undefined {
  const json = JSON.stringify(value);
  if (shape === 'deep') return '['.repeat(5000) + ']'.repeat(5000);
  if (shape === 'garbage') return '\u0000\u0001{"a":';
  if (json === undefined) return undefined;
  if (shape === 'truncated') return json.slice(0, Math.max(0, json.length - 1));
  if (shape === 'form') {
    const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : [['value', value]];
    return fields.map(([name, field]) => `${encode(String(name))}=${encode(typeof field === 'string' ? field : JSON.stringify(field) ?? '')}`).join('&');
  }
  return json;
}

function requestsFor(operation: Operation, tokens: Record<string, string>): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const pathValue = (schema: Schema | undefined) => fc.oneof(valueOf(schema).map(String), fc.constantFrom(company.tenant.companyId, company.tenant.clientId, company.tenant.userId));
  const pathValues = fc.tuple(...pathParameters.map((p) => pathValue(p.schema))).map((values): string[] => values);
  const queryArbitraries: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(queryParameters.map((p) => [p.name, valueOf(p.schema)]));
  const query = fc.record({ ...queryArbitraries, unknownParameter: hostileString }, { requiredKeys: [] });
  const contentTypes = [...(operation.body?.contentTypes ?? ['application/json']), 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'];
  return fc.record({
    pathValues,
    query,
    body: operation.body ? fc.option(valueOf(operation.body.schema), { nil: undefined, freq: 6 }) : fc.option(anyValue, { nil: undefined, freq: 2 }),
    shape: fc.constantFrom<'json' | 'form' | 'truncated' | 'deep' | 'garbage'>('json', 'json', 'json', 'form', 'truncated', 'deep', 'garbage'),
    contentType: fc.option(fc.constantFrom(...contentTypes), { nil: undefined, freq: 8 }),
    // Mostly the credential the operation asks for, so the requests get past authentication.
    authorization: fc.oneof({ weight: 5, arbitrary: fc.constant(tokens[operation.schemes[0] ?? 'none'] ?? '') }, { weight: 2, arbitrary: fc.constantFrom(...Object.values(tokens)) }),
  }).map(({ pathValues: values, query: queryValues, body, shape, contentType, authorization }) => {
    let path = operation.path;
    pathParameters.forEach((p, i) => {
      path = path.replace(`{${p.name}}`, encode(values[i] ?? ''));
    });
    const search = Object.entries(queryValues).map(([name, value]) => `${encode(name)}=${encode(typeof value === 'string' ? value : JSON.stringify(value) ?? '')}`).join('&');
    // fetch sends no body with a GET.
    const text = body === undefined || operation.method === 'GET' ? undefined : bodyText(body, contentType?.includes('form') ? 'form' : shape);
    const headers: Record<string, string> = {};
    if (authorization) headers.authorization = authorization;
    if (text !== undefined) headers['content-type'] = contentType ?? operation.body?.contentTypes[0] ?? 'application/json';
    return { method: operation.method, path: `${path}${search ? `?${search}` : ''}`, headers, ...(text === undefined ? {} : { body: text }) };
  });
}

const OAUTH_ENDPOINTS = /^\/api\/v1\/iam\/(oauth\/(token|revoke)|idToken)(\?|$)/;

/** How many answers had each status: the run must reach handlers (2xx), not only be refused early. */
const statuses = new Map<number, number>();

/** Sends `request` and checks its answer's shape; the status, for the hold measurement. */
async function sendAndCheck(operation: Operation, request: FuzzRequest): Promise<number> {
  const response = await company.server.fetch(`${company.server.baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body, redirect: 'manual' });
  const text = await response.text();
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  const what = `${request.method} ${request.path} → ${response.status} ${text.slice(0, 300)}`;
  assert.ok(response.status < 500, what);
  const requestId = response.headers.get('x-request-id');
  assert.ok(requestId, `no X-Request-Id: ${what}`);
  if (response.status < 400) return response.status;
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('application/problem+json')) {
    const problem = JSON.parse(text) as { code?: unknown; requestId?: unknown; status?: unknown };
    assert.equal(typeof problem.code, 'string', what);
    assert.equal(problem.requestId, requestId, what);
    assert.equal(problem.status, response.status, what);
  } else if (OAUTH_ENDPOINTS.test(request.path) && type.startsWith('application/json')) {
    assert.equal(typeof (JSON.parse(text) as { error?: unknown }).error, 'string', what);
  } else {
    assert.ok(operation.html && type.startsWith('text/html'), `undocumented error shape (${type}): ${what}`);
  }
  return response.status;
}

async function servedOperations(): Promise<Operation[]> {
  const document = (await (await company.server.fetch(`${company.server.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, {
      parameters?: Operation['parameters'];
      requestBody?: { content: Record<string, { schema: Schema }> };
      security?: Array<Record<string, unknown>>;
      responses?: Record<string, { content?: Record<string, unknown> }>;
    }>>;
  };
  return Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => {
      const content = operation.requestBody?.content ?? {};
      const [first] = Object.values(content);
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      const html = Object.values(operation.responses ?? {}).some((response) => 'text/html' in (response.content ?? {}));
      return { method: method.toUpperCase(), path, parameters: operation.parameters ?? [], schemes, html, ...(first ? { body: { contentTypes: Object.keys(content), schema: first.schema } } : {}) };
    }));
}

test(`every operation of the OpenAPI document holds under generated hostile requests (seed ${SEED}, ${RUNS} runs each)`, async () => {
  await addDepartment(company.server.ctx.db, company.tenant.companyId);
  await addEmployee(company.server.ctx.db, company.tenant);
  // Keyed by security scheme name, as the document names them.
  const tokens: Record<string, string> = {
    none: '',
    idToken: `Bearer ${company.token}`,
    refreshToken: `Bearer ${company.refreshToken}`,
    adminToken: `Bearer ${ADMIN_TOKEN}`,
    metricsToken: `Bearer ${METRICS_TOKEN}`,
    forged: `Bearer ${company.token.split('.').slice(0, 2).join('.')}.AAAA`,
    clientSecretBasic: `Basic ${Buffer.from(`${company.tenant.clientId}:${company.tenant.clientSecret}`).toString('base64')}`,
  };
  const operations = await servedOperations();
  assert.ok(operations.length >= 40, `${operations.length} operations served`);
  for (const [index, operation] of operations.entries()) {
    await fc.assert(
      fc.asyncProperty(requestsFor(operation, tokens), async (request) => {
        const hold = await holdOf(() => sendAndCheck(operation, request));
        assert.ok(hold.maxMs < HOLD_LIMIT_MS, `${request.method} ${request.path} held the event loop ${hold.maxMs.toFixed(1)} ms`);
      }),
      { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
    );
  }
  const count = (test: (status: number) => boolean) => [...statuses].filter(([status]) => test(status)).reduce((sum, [, n]) => sum + n, 0);
  const summary = JSON.stringify(Object.fromEntries(statuses));
  if (process.env.FUZZ_SHOW) console.log(summary);
  assert.ok(count((status) => status < 300) >= operations.length, `too few successes to have reached the handlers: ${summary}`);
  assert.ok(count((status) => status === 400) >= operations.length, `too few 400s: ${summary}`);
});
