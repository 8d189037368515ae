// The webhook endpoints API (CONTRACT §7), inside the secured subtree: every handler acts on the
// token's company, so another company's endpoint id is a 404.
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { absentBodyIsEmpty, acceptJsonOnly, type App } from '../platform/http.ts';
import type { WebhookDeps } from './deps.ts';
import { Collection, NoBody, NoQuery, NotModified, problemResponse, problemResponses } from '../platform/schemas.ts';
import { replyWithEtag } from '../platform/collection.ts';
import { pagedQuery } from '../platform/paged-collection.ts';
import { formatInstant } from '../platform/local-time.ts';
import { deleteEndpoint, findEndpoint, presentEndpoint } from './endpoints.ts';
import { changeEndpoint, companyTimezone, deliveryPage, endpointPage, registerEndpoint, replayPeriod, retryEndpointDelivery, rotateEndpointSecret, sendTestMessage, type WebhookCaller } from './operations.ts';
import { CreatedEndpoint, Delivery, DeliveryParams, Endpoint, EndpointChanges, EndpointInput, EndpointParams, Queued, ReplayPeriod, RotatedSecret } from './schemas.ts';

const TAGS = ['webhooks'];
const SECURITY = [{ idToken: [] }];
const Accepted = Type.Object({ messageId: Type.String({ description: 'The `webhook-id` of the queued message; its attempts appear in the deliveries.' }) }, { description: 'Accepted: the message is queued for delivery.' });

const DELIVERY_RULES =
  'Messages are POSTed in `seq` order, at least once; a failing message holds back the later ones of its endpoint. A `2xx` within `WEBHOOK_TIMEOUT_MS` (15 s) is success; anything else, ' +
  'a `3xx` included, is retried after `WEBHOOK_RETRY_SCHEDULE` (5s, 5m, 30m, 2h, 5h, 10h, 14h, 20h, 24h, each plus up to 10 % jitter; a longer `Retry-After` on `429`/`503` replaces the wait), ' +
  'counted from the end of the failed attempt (the answer, the failed connection or the timeout). ' +
  '`410` disables the endpoint at once; so does the end of the schedule. Enabling it again resumes with the first undelivered message. See docs/webhooks.md.';

/** The token's company acts: another company's endpoint id is a 404. */
function callerOf(deps: WebhookDeps, request: FastifyRequest): WebhookCaller {
  return { deps, companyId: request.principal.companyId, log: request.log };
}

export async function webhookRoutes(app: App, { deps }: { deps: WebhookDeps }): Promise<void> {
  acceptJsonOnly(app);

  app.post('/api/v1/company/webhooks', {
    schema: {
      tags: TAGS, operationId: 'createWebhookEndpoint', security: SECURITY,
      summary: 'Registers a webhook endpoint',
      description: 'The endpoint receives the changes committed after its creation (of `types`, or all). The URL must be https and resolve to public addresses only (`400 invalid_webhook_url`, `400 webhook_destination_refused`). The `secret` is shown only in this answer. ' + DELIVERY_RULES,
      querystring: NoQuery,
      body: EndpointInput,
      response: { 201: CreatedEndpoint, ...problemResponses(400, 401, 413, 415, 429) },
    },
  }, async (request, reply) => {
    const caller = callerOf(deps, request);
    const { row, secret } = await registerEndpoint(caller, request.body);
    return reply.code(201).send({ ...presentEndpoint(row, await companyTimezone(caller)), secret });
  });

  app.get('/api/v1/company/webhooks', {
    schema: {
      tags: TAGS, operationId: 'listWebhookEndpoints', security: SECURITY,
      summary: 'Lists the company\'s webhook endpoints',
      querystring: pagedQuery({}),
      response: { 200: Collection(Endpoint), 304: NotModified, ...problemResponses(400, 401, 429) },
    },
  }, async (request, reply) => replyWithEtag(request, reply, await endpointPage({ deps, companyId: request.principal.companyId }, request.query)));

  app.get('/api/v1/company/webhooks/:id', {
    schema: {
      tags: TAGS, operationId: 'getWebhookEndpoint', security: SECURITY,
      summary: 'Reads a webhook endpoint',
      params: EndpointParams,
      querystring: NoQuery,
      response: { 200: Endpoint, ...problemResponses(400, 401, 404, 429) },
    },
  }, async (request) => {
    const companyId = request.principal.companyId;
    return presentEndpoint(await findEndpoint(deps.db, companyId, request.params.id), await companyTimezone({ deps, companyId }));
  });

  app.patch('/api/v1/company/webhooks/:id', {
    schema: {
      tags: TAGS, operationId: 'updateWebhookEndpoint', security: SECURITY,
      summary: 'Changes a webhook endpoint (URL, types, description, enabled)',
      description: '`enabled: false` pauses delivery; `enabled: true` resumes it with the first undelivered message, the failed one included, on a fresh retry schedule. A new URL is checked like at creation.',
      params: EndpointParams,
      querystring: NoQuery,
      body: EndpointChanges,
      response: { 200: Endpoint, ...problemResponses(400, 401, 404, 413, 415, 429) },
    },
  }, async (request) => {
    const caller = callerOf(deps, request);
    const row = await changeEndpoint(caller, request.params.id, request.body);
    return presentEndpoint(row, await companyTimezone(caller));
  });

  app.delete('/api/v1/company/webhooks/:id', {
    schema: {
      tags: TAGS, operationId: 'deleteWebhookEndpoint', security: SECURITY,
      summary: 'Deletes a webhook endpoint, its queued messages and its delivery log',
      params: EndpointParams,
      querystring: NoQuery,
      response: { 204: Type.Null({ description: 'Deleted.' }), ...problemResponses(400, 401, 404, 429) },
    },
  }, async (request, reply) => {
    await deleteEndpoint(deps.db, request.principal.companyId, request.params.id);
    return reply.code(204).send(null);
  });

  app.post('/api/v1/company/webhooks/:id/rotate-secret', {
    schema: {
      tags: TAGS, operationId: 'rotateWebhookSecret', security: SECURITY,
      summary: 'Replaces the signing secret',
      description: 'Answers the new secret (shown only here). For 24 hours messages carry two signatures, space separated in `webhook-signature`: one with the new secret, one with the previous; a receiver holding either verifies them. Every replaced secret signs until 24 hours after its own replacement, also through quick rotations (three within a minute: four signatures), at most 4 beside the current one: a fifth rotation within 24 hours ends the oldest overlap at once rather than being refused, so that a leaked secret can always be replaced.',
      params: EndpointParams,
      querystring: NoQuery,
      body: NoBody,
      response: { 200: RotatedSecret, ...problemResponses(400, 401, 404, 409, 413, 415, 429) },
    },
    preValidation: absentBodyIsEmpty,
  }, async (request) => {
    const caller = callerOf(deps, request);
    const { secret, previousUntil } = await rotateEndpointSecret(caller, request.params.id);
    return { secret, previousSecretExpiresAt: formatInstant(previousUntil, await companyTimezone(caller)) };
  });

  app.post('/api/v1/company/webhooks/:id/test', {
    schema: {
      tags: TAGS, operationId: 'testWebhookEndpoint', security: SECURITY,
      summary: 'Sends a webhook.test message',
      description: 'Queues a `webhook.test` message (whatever the endpoint\'s types), delivered like any other, behind a failing message if there is one; see the deliveries for its outcome.',
      params: EndpointParams,
      querystring: NoQuery,
      body: NoBody,
      response: { 202: Accepted, ...problemResponses(400, 401, 404, 413, 415, 429) },
    },
    preValidation: absentBodyIsEmpty,
  }, async (request, reply) => {
    const messageId = await sendTestMessage(callerOf(deps, request), request.params.id);
    return reply.code(202).send({ messageId });
  });

  app.get('/api/v1/company/webhooks/:id/deliveries', {
    schema: {
      tags: TAGS, operationId: 'listWebhookDeliveries', security: SECURITY,
      summary: 'The endpoint\'s delivery log, newest first',
      description: 'One item per attempt, kept as long as the change log keeps changes (CHANGES_RETENTION_SECONDS, 30 days).',
      params: EndpointParams,
      querystring: pagedQuery({}),
      response: { 200: Collection(Delivery), 304: NotModified, ...problemResponses(400, 401, 404, 429) },
    },
  }, async (request, reply) => replyWithEtag(request, reply, await deliveryPage({ deps, companyId: request.principal.companyId }, request.params.id, request.query)));

  app.post('/api/v1/company/webhooks/:id/deliveries/:deliveryId/retry', {
    schema: {
      tags: TAGS, operationId: 'retryWebhookDelivery', security: SECURITY,
      summary: 'Sends a delivery\'s message again',
      description: 'A message still waiting for its next attempt is tried at once; one already delivered (or given up) is queued again with its original `webhook-id`. `410 message_expired` when its change is older than the change log keeps.',
      params: DeliveryParams,
      querystring: NoQuery,
      body: NoBody,
      response: { 202: Accepted, ...problemResponses(400, 401, 404, 413, 415, 429), 410: problemResponse('Gone: the message\'s change is older than the change log keeps (code message_expired)') },
    },
    preValidation: absentBodyIsEmpty,
  }, async (request, reply) => {
    const messageId = await retryEndpointDelivery(callerOf(deps, request), request.params.id, request.params.deliveryId);
    return reply.code(202).send({ messageId });
  });

  app.post('/api/v1/company/webhooks/:id/replay', {
    schema: {
      tags: TAGS, operationId: 'replayWebhookMessages', security: SECURITY,
      summary: 'Sends the changes of a period again',
      description: 'Queues the changes that occurred from `from` (inclusive) to `to` (exclusive) and that the endpoint\'s types select, with their original ids, in `seq` order: the endpoint\'s own changes only, those committed after its creation (CONTRACT §7; a period reaching further back sends nothing older for the first time). Only changes the log still keeps (CHANGES_RETENTION_SECONDS) can be replayed. ' +
        'One replay queues at most 10,000 changes: a period holding more is refused as a whole (`400 replay_too_large`; replay shorter periods, or read the changes with `GET /api/v1/company/changes`). ' +
        'A replay while changes replayed or retried earlier are still queued for the endpoint is refused (`409 replay_in_progress`): replay again once they are delivered (a disabled endpoint delivers them only once enabled again).',
      params: EndpointParams,
      querystring: NoQuery,
      body: ReplayPeriod,
      response: { 202: Queued, ...problemResponses(400, 401, 404, 409, 413, 415, 429) },
    },
  }, async (request, reply) => {
    const queued = await replayPeriod(callerOf(deps, request), request.params.id, request.body);
    return reply.code(202).send({ queued });
  });
}
