// The application factory: everything but listen(). Tests build it on a fresh database and talk to it
// over real HTTP; the server entry point builds it once and listens.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Writable } from 'node:stream';
import Fastify, { type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from './context.ts';
import { DEFAULT_BODY_LIMIT, answerFrameworkError, installErrorHandling, type App } from '../platform/http.ts';
import { installValidators } from '../platform/validation.ts';
import { readJsonBodies } from '../platform/json-body.ts';
import { readFormBodies } from '../platform/form-body.ts';
import { answerClientError, capConnectionsPerAddress, serverOptions } from '../platform/connections.ts';
import { refuseUnstorableText } from '../platform/unstorable-text.ts';
import { parseUrlEncoded, routableUrl } from '../platform/percent-decoding.ts';
import { CachedAnswerLane, laneCanAnswer } from '../platform/cached-answer-lane.ts';
import { registerOpenApi } from '../platform/openapi.ts';
import { healthRoutes } from '../platform/health.ts';
import { metricsRoutes, recordRequests } from '../platform/metrics-routes.ts';
import { securityTxtRoutes } from '../platform/security-txt.ts';
import { iamRoutes } from '../iam/routes.ts';
import { securedApi } from './secured-api.ts';
import { operatorApi } from './operator-api.ts';
import { demoCallbackRoutes } from '../demo/callback.ts';
import { webhookDelivery } from '../webhooks/delivery-plugin.ts';
import { webhookMessagesDocument } from '../webhooks/openapi.ts';
import { consoleRoutes } from '../console/routes.ts';
import { loadSecretBox } from '../sso/secrets-key.ts';
import { ssoRuntime } from '../sso/runtime.ts';
import { ssoFederation } from '../sso/federation.ts';
import { consoleDeps, demoCallbackDeps, identityDeps, ssoDeps, webhookDeps } from './feature-options.ts';

export interface BuildOptions {
  /** false for silence (tests); `stream` sends the JSON lines elsewhere than standard output. */
  logger?: false | { stream: Writable };
  /** Told of every route as it is added (the route-table test lists the app's routes this way). */
  onRoute?: (route: { method: string; url: string }) => void;
  /** false: every request through Fastify (tests compare the two); `onAnswer` is told of each answer the lane gave. */
  cachedAnswerLane?: false | { onAnswer: (path: string) => void };
}

// Codes and states in a logged URL would outlive the request: a code is a credential until used,
// and so is a console invitation's token (whoever reads it could accept the invitation first).
const LOGGED_QUERY_SECRETS = /([?&](?:code|state)=)[^&]*/g;
const LOGGED_PATH_SECRETS = /(\/console\/invitations\/)[^/?#]+/g;

/** The request as each log line shows it, without the authorization code of a callback URL or an invitation's token. */
function requestForLog(request: FastifyRequest): Record<string, unknown> {
  // The URL as it came, not as routableUrl may have rewritten it.
  const url = request.originalUrl.replace(LOGGED_QUERY_SECRETS, '$1[redacted]').replace(LOGGED_PATH_SECRETS, '$1[redacted]');
  return { method: request.method, url, host: request.headers.host, remoteAddress: request.ip };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Honours a well-formed incoming X-Request-Id so a trace spans the load balancer and this service. */
function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * A hop count trusts that many proxies next to the service, whatever their addresses. Given as a
 * function because Fastify 5 ignores forwarded headers for a numeric trustProxy; request.ip is the
 * only forwarded value the service uses.
 */
function trustedProxies(setting: false | number | string): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  // Cached answers of the secured API sent without Fastify's lifecycle (src/platform/cached-answer-lane.ts).
  const laneSettings = options.cachedAnswerLane;
  const laneCouldAnswer = laneCanAnswer({ logLevel: options.logger === false ? undefined : ctx.config.logLevel, sharedRateLimit: ctx.redis !== undefined });
  const lane = laneSettings === false || !laneCouldAnswer ? undefined : new CachedAnswerLane({
    requestId: requestIdOf,
    observe: ctx.metrics.exposed ? (route, status, seconds) => ctx.metrics.request('GET', route, status, seconds) : undefined,
    onAnswer: laneSettings?.onAnswer,
  });
  const app = Fastify({
    logger: options.logger === false ? false : { level: ctx.config.logLevel, serializers: { req: requestForLog }, ...(options.logger ? { stream: options.logger.stream } : {}) },
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Off unless TRUST_PROXY names the load balancer: request.ip keys the failed-login penalties.
    trustProxy: trustedProxies(ctx.config.trustProxy),
    genReqId: requestIdOf,
    // Escapes that decode to no text reach their route and are refused there (percent-decoding.ts).
    routerOptions: { ignoreTrailingSlash: true, querystringParser: parseUrlEncoded },
    rewriteUrl: routableUrl,
    frameworkErrors: answerFrameworkError,
    ...serverOptions(ctx.config),
    clientErrorHandler: answerClientError,
    serverFactory: lane?.serverFactory,
  }).withTypeProvider<TypeBoxTypeProvider>();
  lane?.attach(app);
  // Behind a proxy every connection comes from the proxy's address: the cap belongs there then.
  capConnectionsPerAddress(app.server, ctx.config.trustProxy === false ? ctx.config.maxConnectionsPerAddress : 0);

  const onRoute = options.onRoute;
  if (onRoute) {
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) onRoute({ method, url: route.url });
    });
  }
  // Callback style: an async hook would cost a promise and a microtask on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // CONTRACT §2 asks no-store of every answer carrying a token; answers to actions carry secrets too
    // (a created client's or webhook's secret, an invitation link). So no cache keeps the answer to
    // anything but a read, unless its route sets Cache-Control itself (docs/operations.md).
    if (request.method !== 'GET' && request.method !== 'HEAD') reply.header('cache-control', 'no-store');
    done();
  });
  recordRequests(app, ctx.metrics);
  installValidators(app);
  installErrorHandling(app, ctx.config.baseUrl);
  readJsonBodies(app);
  refuseUnstorableText(app);
  readFormBodies(app);
  await registerOpenApi(app, ctx.config, { webhooks: webhookMessagesDocument() });

  await app.register(healthRoutes, { db: ctx.db, redis: ctx.redis });
  await app.register(metricsRoutes, { metrics: ctx.metrics, token: ctx.config.metricsToken });
  await app.register(securityTxtRoutes, { baseUrl: ctx.config.baseUrl, contacts: ctx.config.securityContacts, policy: ctx.config.securityPolicy, now: () => ctx.clock.now() });
  const sso = ssoRuntime(ssoDeps(ctx), await loadSecretBox(ctx.db, ctx.config, (message) => app.log.warn(message)));
  await app.register(iamRoutes, { deps: identityDeps(ctx), federation: ssoFederation(sso) });
  await app.register(demoCallbackRoutes, { deps: demoCallbackDeps(ctx) });
  await app.register(securedApi, { ctx, lane });
  await app.register(operatorApi, { ctx, sso });
  await app.register(webhookDelivery, { deps: webhookDeps(ctx) });
  await app.register(consoleRoutes, { deps: consoleDeps(ctx) });
  return app;
}
