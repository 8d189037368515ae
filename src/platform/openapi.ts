// The OpenAPI 3.1 document is generated from the route schemas (one TypeBox schema per route
// validates, serialises and documents) and served at /openapi.json, with the reference page at /docs
// (reference-page.ts). The server is relative (`/`): the document describes whatever host serves it.
//
// What every operation shares is added here, once, after generation (`completeDocument`): the problem
// media type and its component, the 401/429/503 answers of every secured operation, the X-Request-Id
// header, the OAuth alternative to the bearer scheme, and an explicit `security: []` on public routes.
import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import type { App } from './http.ts';
import type { Config } from './config.ts';
import { Problem } from './schemas.ts';
import { registerReferencePage } from './reference-page.ts';
import { problemType } from './error-codes.ts';
import { errorPageRoute } from './error-page.ts';

type Json = Record<string, unknown>;
type Operation = Json & { security?: Json[]; responses?: Record<string, Json> };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PROBLEM_TYPE = 'application/problem+json';
const REF = {
  problem: { $ref: '#/components/schemas/Problem' },
  requestId: { $ref: '#/components/headers/RequestId' },
  etag: { $ref: '#/components/headers/ETag' },
  noStore: { $ref: '#/components/headers/NoStore' },
  privateNoCache: { $ref: '#/components/headers/PrivateNoCache' },
  rateLimit: {
    'X-RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
    'X-RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
    'X-RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
  },
};

/** Tags in the order the reference page shows them. Every tag a route uses must be declared here. */
const TAGS = [
  { name: 'identity', description: 'OAuth 2.0 authorization server and OpenID Connect provider: discovery, keys, the login page, the token and idToken endpoints and revocation. Errors are RFC 6749 `{error, error_description}`.' },
  { name: 'feeds', description: 'Read-only snapshots: the detailed timetable of one day, with users, departments, positions and shift types embedded. Answers `If-None-Match` with `304`.' },
  { name: 'company', description: 'Company data of the token\'s company: configuration, users (employees), contracts and the timetable (shifts). Collections page with `limit` and `cursor`.' },
  { name: 'inbound', description: 'Batches sent by the customer\'s systems: realised and prognosis revenue and the wage budget, per day or ISO week. A batch is all-or-nothing and idempotent.' },
  { name: 'timeclock', description: 'Badges of the organisation\'s activated users and the timeclock events they punch. Send one person\'s events in order, the next only after the previous `200`.' },
  { name: 'changes', description: 'The company\'s change log: every change (with tombstones for deletions) after a signed cursor, in commit order, with long polling. See docs/changes.md.' },
  { name: 'webhooks', description: 'Webhook endpoints of the token\'s company: changes pushed as signed Standard Webhooks messages, in order, at least once, with a delivery log, retry and replay. The message types are listed under `webhooks`.' },
  { name: 'operator', description: 'The operator API (exists only when `ADMIN_TOKEN` is set): organisations, companies, API Clients and Users, grants, keys and imports.' },
  { name: 'demo', description: 'The demo client\'s redirect page: shows the code it received and the command that exchanges it.' },
  { name: 'health', description: 'Liveness and readiness probes for load balancers and orchestrators, the Prometheus metrics (behind `METRICS_TOKEN`), and where to report a vulnerability (`/.well-known/security.txt`).' },
];

function baseDocument(config: Config): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workforce Scheduling Service',
      version: '1.0.0',
      summary: 'OAuth 2.0 / OpenID Connect authorization server and company API for workforce scheduling data.',
      description: [
        'Customer organisations read their company\'s configuration, employees, contracts and timetable, send revenue and wage budget batches, and register timeclock events.',
        '',
        '**Authentication.** Log the API User in with the authorization-code flow (`oauth`), keep the refresh token, and exchange it at `POST /api/v1/iam/idToken` for an ID token (valid about one hour). Present the ID token as `Authorization: Bearer <ID token>` (`idToken`). Reuse it until shortly before `exp`; store every renewed refresh token.',
        '',
        '**Errors.** The company API answers RFC 9457 problem details (`application/problem+json`) with a stable `code` and the `requestId` that every response also carries in `X-Request-Id`. The OAuth endpoints answer RFC 6749 `{error, error_description}`.',
        '',
        '**Limits.** Secured calls are rate limited per API Client; every answer to an authenticated call carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`, and over the limit the answer is `429` with `Retry-After` (seconds). A path no operation declares (`404`), or a declared path asked with another method (`405` with `Allow`, the methods it answers), is answered by the router before authentication, to anyone alike: such an answer is no secured call, carries no rate-limit headers and does not count. Bodies over 2 MiB: `413`; a request must arrive within 30 s (`408`); strings holding U+0000 or an unpaired surrogate, and percent-escapes in the path, query or a form that decode to no UTF-8 text (`%ED%A0%80`, `%C0%80`, `%F0`, `%ZZ`), are `400 invalid_character`. `503` means the database is briefly unavailable: retry.',
        '',
        '**Versioning.** The major version is part of the path (`/api/v1`). Within a version, fields and operations are only added, never removed or changed in meaning; clients must ignore unknown fields.',
      ].join('\n'),
      // Support is whoever operates this deployment; the service cannot know their address.
      contact: { name: 'The operator of this deployment (quote the requestId of a failed call)' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'The host that serves this document' }],
    tags: TAGS,
    components: {
      securitySchemes: {
        idToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An ID token (identical to the access token), from the token endpoint or `POST /api/v1/iam/idToken`. Valid `ACCESS_TOKEN_TTL` seconds (default 3600).',
        },
        oauth: {
          type: 'oauth2',
          description: 'Authorization code flow (PKCE S256 supported) with the API User\'s email and secret. The refresh token it returns is exchanged at idToken (`Authorization: Bearer <refresh_token>`) for ID tokens, which every client may do. `refreshUrl` is the token endpoint because that is what takes a standard refresh (`grant_type=refresh_token&refresh_token=…` with client authentication), and it does so only for clients whose operator enabled the `refresh_token` grant (others get `400 unauthorized_client`); idToken is no refreshUrl, as it answers such a request `401`.',
          flows: {
            authorizationCode: {
              authorizationUrl: `${config.authUrl}/oauth/authorize`,
              tokenUrl: `${config.issuer}/oauth/token`,
              refreshUrl: `${config.issuer}/oauth/token`,
              scopes: { all: 'Everything the API User may do (the only scope).' },
            },
          },
        },
        refreshToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT (typ rt+jwt)',
          description: 'A refresh token, accepted only by idToken (never by the company API).',
        },
        clientSecretBasic: {
          type: 'http',
          scheme: 'basic',
          description: 'API Client authentication at the token and revocation endpoints: `client_id:client_secret` (RFC 6749 §2.3.1); the same two fields in the body work too.',
        },
        metricsToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator\'s `METRICS_TOKEN`; `GET /metrics` exists only when it is set.',
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator\'s `ADMIN_TOKEN`; the operator API exists only when it is set.',
        },
      },
    },
  };
}

function problemExample(status: number, code: string, detail: string): Json {
  return {
    type: problemType('https://wfs.example.com', code),
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    code,
    requestId: '6f1c2a4e-8f0d-4b8e-9a53-2f1e0c7d9b11',
  };
}

function problemContent(example?: Json): Json {
  return { [PROBLEM_TYPE]: { schema: REF.problem, ...(example ? { example } : {}) } };
}

const RETRY_AFTER = { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 }, example: 30 };

/** Shared answers of every secured operation, referenced from each. */
const SECURED_RESPONSES: Record<string, { name: string; response: Json }> = {
  401: {
    name: 'Unauthorized',
    response: {
      description: 'Missing, invalid, expired or revoked ID token (code `missing_token` or `invalid_token`). Renew it at idToken and retry once.',
      headers: {
        'WWW-Authenticate': { description: '`Bearer` without a token; `Bearer error="invalid_token", …` for a bad one (RFC 6750 §3).', schema: { type: 'string' } },
        'Cache-Control': REF.noStore,
        'X-Request-Id': REF.requestId,
      },
      content: problemContent(problemExample(401, 'invalid_token', 'The token has expired.')),
    },
  },
  429: {
    name: 'TooManyRequests',
    response: {
      description: 'Over the API Client\'s rate limit; wait the `Retry-After` seconds.',
      headers: { 'Retry-After': RETRY_AFTER, ...REF.rateLimit, 'Cache-Control': REF.noStore, 'X-Request-Id': REF.requestId },
      content: problemContent(problemExample(429, 'rate_limited', 'Too many requests; retry after the time in Retry-After.')),
    },
  },
  503: {
    name: 'ServiceUnavailable',
    response: {
      description: 'The database is briefly unavailable; retry after `Retry-After` seconds.',
      headers: { 'Retry-After': RETRY_AFTER, 'Cache-Control': REF.noStore, 'X-Request-Id': REF.requestId },
      content: problemContent(problemExample(503, 'database_unavailable', 'The database is unavailable; retry shortly.')),
    },
  },
};

/** Answers of the HTTP layer (connections.ts), whatever the route: shared by every operation. */
const CONNECTION_RESPONSES = {
  HeadersTooLarge: {
    description: 'The request headers are larger than 16 KiB (code `headers_too_large`).',
    headers: { 'X-Request-Id': REF.requestId },
    content: problemContent(problemExample(431, 'headers_too_large', 'The request headers are larger than 16 KiB.')),
  },
  RequestTimeout: {
    description: 'The request did not arrive within `REQUEST_TIMEOUT_MS` (default 30 s; code `request_timeout`).',
    headers: { 'X-Request-Id': REF.requestId },
    content: problemContent(problemExample(408, 'request_timeout', 'The request did not arrive in time; send the whole body without pauses.')),
  },
};

function sharedComponents(): Json {
  const { $id: _id, ...problem } = Problem as unknown as Json;
  return {
    schemas: {
      Problem: {
        ...problem,
        description: 'RFC 9457 problem details. `code` is stable (see docs/errors.md); `errors` lists every invalid field of a bad request.',
        examples: [{
          ...problemExample(400, 'validation_failed', 'Invalid body: /items/3/amount must be a number with at most 2 decimals (and 1 more).'),
          errors: [
            { path: '/items/3/amount', message: 'must be a number with at most 2 decimals' },
            { path: '/items/7/departmentId', message: 'unknown department' },
          ],
        }],
      },
    },
    headers: {
      ETag: {
        description: 'Version of the representation; send it back in `If-None-Match` to get an empty `304` while nothing changed.',
        schema: { type: 'string' },
        example: '"3f2a9c1e"',
      },
      NoStore: {
        description: 'No cache may keep the answer: the answer to anything but a read may carry a secret, a token or a single-use link, and a refusal (every problem answer) is no representation to keep.',
        schema: { type: 'string', const: 'no-store' },
      },
      PrivateNoCache: {
        description: 'A read of the company API: only the client may keep the answer (it is one company\'s), and must revalidate it before reuse (with its `ETag` where it has one: `If-None-Match` gets an empty `304`).',
        schema: { type: 'string', const: 'private, no-cache' },
      },
      RateLimitLimit: { description: 'Requests the API Client may make per window (one minute).', schema: { type: 'integer', minimum: 0 } },
      RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
      RateLimitReset: { description: 'Seconds until the current window ends.', schema: { type: 'integer', minimum: 0 } },
      RequestId: {
        description: 'Identifies the request in the service\'s logs; equal to a problem\'s `requestId`. A well-formed incoming `X-Request-Id` is echoed.',
        schema: { type: 'string' },
      },
    },
    responses: { ...Object.fromEntries(Object.values(SECURED_RESPONSES).map(({ name, response }) => [name, response])), ...CONNECTION_RESPONSES },
  };
}

/** The route generator writes problem bodies as plain JSON schemas; recognise them by their fields. */
function isProblemSchema(schema: unknown): boolean {
  const required = (schema as { required?: unknown } | null)?.required;
  return Array.isArray(required) && ['type', 'title', 'status', 'code', 'requestId'].every((field) => required.includes(field));
}

function completeResponse(status: string, response: Json): Json {
  if ('$ref' in response) return response;
  const description = response.description === 'Default Response' ? (STATUS_CODES[status] ?? 'Response') : response.description;
  const content = response.content as Record<string, { schema?: unknown; example?: Json }> | undefined;
  const json = content?.['application/json'];
  const problem = Number(status) >= 400 && json && isProblemSchema(json.schema);
  return {
    ...response,
    description,
    // Every problem answer is sent no-store (platform/http.ts).
    headers: { ...(response.headers as Json | undefined), ...(problem ? { 'Cache-Control': REF.noStore } : {}), 'X-Request-Id': REF.requestId },
    ...(problem ? { content: problemContent(json.example) } : {}),
  };
}

function requires(operation: Operation, scheme: string): boolean {
  return (operation.security ?? []).some((requirement) => scheme in requirement);
}

/**
 * Headers added to the route's own answers: the ETag of a cacheable read's success, Cache-Control:
 * no-store on the success of anything but a read (src/app/app.ts sends it) and private, no-cache on a
 * secured read's (src/app/secured-api.ts; a route declaring its own Cache-Control keeps it), and the
 * rate limit on every answer of a secured call (counted before the body is read, so a 400 carries it too).
 */
function withSuccessHeaders(responses: Record<string, Json>, secured: boolean, read: boolean): Record<string, Json> {
  const cacheable = '304' in responses;
  return Object.fromEntries(Object.entries(responses).map(([status, response]) => {
    const success = Number(status) < 400;
    if ('$ref' in response || (!success && !secured)) return [status, response];
    const caching = !success ? {} : !read ? { 'Cache-Control': REF.noStore } : secured ? { 'Cache-Control': REF.privateNoCache } : {};
    const headers = { ...(cacheable && success ? { ETag: REF.etag } : {}), ...caching, ...(secured ? REF.rateLimit : {}), ...(response.headers as Json) };
    return [status, { ...response, headers }];
  }));
}

/**
 * @fastify/swagger marks every request body required; one without a single field (schemas.ts NoBody)
 * may be left out, and the document says so.
 */
function withOptionalEmptyBody(operation: Operation): Operation {
  const body = operation.requestBody as { content?: Record<string, { schema?: { properties?: Json } }> } | undefined;
  const schemas = Object.values(body?.content ?? {}).map((media) => media.schema);
  const fieldless = schemas.length > 0 && schemas.every((schema) => schema?.properties && Object.keys(schema.properties).length === 0);
  return fieldless ? { ...operation, requestBody: { ...body, required: false } } : operation;
}

function completeOperation(method: string, given: Operation): Operation {
  const operation = withOptionalEmptyBody(given);
  const secured = requires(operation, 'idToken');
  const completed = Object.fromEntries(Object.entries(operation.responses ?? {}).map(([status, response]) => [status, completeResponse(status, response)]));
  const responses = withSuccessHeaders(completed, secured, method === 'get' || method === 'head');
  // Any request can be refused by the HTTP layer before it reaches a route.
  responses['431'] ??= { $ref: '#/components/responses/HeadersTooLarge' };
  if (operation.requestBody) responses['408'] ??= { $ref: '#/components/responses/RequestTimeout' };
  // The operator API reads and writes the database like the company API, so it can answer 503 too.
  if (requires(operation, 'adminToken')) responses['503'] ??= { $ref: '#/components/responses/ServiceUnavailable' };
  if (!secured) return { ...operation, security: operation.security ?? [], responses };
  // These answers come from the shared authentication hook, rate limit and error handler, not from
  // the route, so every secured operation documents the same ones.
  for (const [status, { name }] of Object.entries(SECURED_RESPONSES)) {
    responses[status] = { $ref: `#/components/responses/${name}` };
  }
  // The ID token is what the oauth flow yields; offering both lets the reference page log in.
  const security = operation.security?.some((requirement) => 'oauth' in requirement) ? operation.security : [...(operation.security ?? []), { oauth: ['all'] }];
  return { ...operation, security, responses };
}

/** The operator API exists only when ADMIN_TOKEN is set; so do its operations in the document. */
function servedOperations(item: Record<string, Operation>, config: Config): [string, Operation][] {
  return Object.entries(item).filter(([key, value]) => !(METHODS.includes(key) && !config.adminToken && requires(value, 'adminToken')));
}

function completeDocument(document: Json, config: Config): Json {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const served = Object.entries(paths).map(([path, item]) => [path, servedOperations(item, config)] as const).filter(([, operations]) => operations.length > 0);
  const completed = Object.fromEntries(served.map(([path, item]) => {
    const operations = Object.fromEntries(item.map(([key, value]) => [key, METHODS.includes(key) ? completeOperation(key, value) : value]));
    // The login page lives on AUTH_URL, which may be another host than the API.
    const servers = path.startsWith('/oauth/') && config.authUrl !== config.baseUrl ? { servers: [{ url: config.authUrl, description: 'Login pages (AUTH_URL)' }] } : {};
    return [path, { ...operations, ...servers }];
  }));
  const components = document.components as Record<string, Json>;
  const shared = sharedComponents() as Record<string, Json>;
  const mergedComponents = Object.fromEntries(
    [...new Set([...Object.keys(components), ...Object.keys(shared)])].map((key) => [key, { ...components[key], ...shared[key] }]),
  );
  if (!config.adminToken) {
    const { adminToken: _unused, ...schemes } = mergedComponents.securitySchemes as Json;
    mergedComponents.securitySchemes = schemes;
  }
  const tags = config.adminToken ? TAGS : TAGS.filter((tag) => tag.name !== 'operator');
  return { ...document, tags, paths: completed, components: mergedComponents };
}

/** `webhooks`: the OpenAPI 3.1 section of the requests the service makes (a feature's, given by the composition). */
export async function registerOpenApi(app: App, config: Config, sections: { webhooks?: Json } = {}): Promise<void> {
  const document: Json = { ...baseDocument(config), ...sections };
  await app.register(swagger, {
    openapi: document,
    // Browser pages (errorFormat 'html': the login page, the demo callback) answer HTML, errors included.
    transform: ({ schema, url, route }) => ({
      schema: route.config?.errorFormat === 'html' ? { ...schema, produces: ['text/html'] } : schema,
      url,
    }),
    transformObject: (generated) => completeDocument(('openapiObject' in generated ? generated.openapiObject : {}) as Json, config),
  });
  await registerReferencePage(app, config);
  errorPageRoute(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
