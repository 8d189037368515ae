// What a company does with its webhook endpoints, written once for every way in: the endpoints API
// (routes.ts, the company of the token) and the customer console (src/console/webhook-routes.ts, a
// company of the console user's organisation). Each operation names the company, so another company's
// endpoint id is a 404, and wakes this instance's dispatcher when it queued or resumed something.
import type { FastifyBaseLogger } from 'fastify';
import type { WebhookDeps } from './deps.ts';
import { badRequest } from '../platform/errors.ts';
import { secretBox } from '../platform/sealed-secrets.ts';
import { formatInstant } from '../platform/local-time.ts';
import { collectionPageRequest, readPage, type Page } from '../platform/paged-collection.ts';
import { changeLog } from './change-stream.ts';
import { createEndpoint, endpointListing, findEndpoint, rotateSecret, updateEndpoint, type EndpointEnvironment, type EndpointRow } from './endpoints.ts';
import { deliveryListing, type presentDelivery } from './deliveries.ts';
import { queueReplay, queueTestMessage, retryDelivery } from './messages.ts';
import { wakeDelivery } from './delivery-plugin.ts';
import type { Endpoint, EndpointChanges, EndpointInput } from './schemas.ts';

/** Who acts: the context, the company whose endpoints are reached, and where warnings go. */
export interface WebhookCaller {
  deps: WebhookDeps;
  companyId: string;
  log: FastifyBaseLogger;
}

/** `limit` and `cursor` of a collection request (platform/collection.ts). */
type PageParameters = { limit?: number; cursor?: string };

function environment({ deps, log }: WebhookCaller): Promise<EndpointEnvironment> {
  return secretBox(deps.db, deps.config, () => log.warn('SECRETS_KEY is unset: secrets are sealed with a key kept in the database (development only)')).then((box) => ({
    box,
    policy: { allowInsecure: deps.config.webhookAllowInsecure },
    now: deps.clock.now(),
    log,
  }));
}

export async function companyTimezone({ deps, companyId }: Pick<WebhookCaller, 'deps' | 'companyId'>): Promise<string> {
  return (await deps.companies.find(companyId)).timezone;
}

/** A page of the company's endpoints, by id. */
export async function endpointPage(caller: Pick<WebhookCaller, 'deps' | 'companyId'>, query: PageParameters): Promise<Page<Endpoint>> {
  const { deps, companyId } = caller;
  const page = collectionPageRequest({ key: deps.cursorKey, tenant: companyId, listing: '/company/webhooks' }, query);
  return readPage(page, endpointListing(deps.db, companyId, await companyTimezone(caller)));
}

/** A page of an endpoint's delivery log, newest first. */
export async function deliveryPage(caller: Pick<WebhookCaller, 'deps' | 'companyId'>, id: string, query: PageParameters): Promise<Page<ReturnType<typeof presentDelivery>>> {
  const { deps, companyId } = caller;
  const endpoint = await findEndpoint(deps.db, companyId, id);
  const page = collectionPageRequest({ key: deps.cursorKey, tenant: companyId, listing: `/company/webhooks/${endpoint.id}/deliveries` }, query);
  return readPage(page, deliveryListing(deps.db, endpoint.id, await companyTimezone(caller)));
}

/** A new endpoint (its URL checked, `400` otherwise) receiving the changes committed from now on. */
export async function registerEndpoint(caller: WebhookCaller, input: EndpointInput): Promise<{ row: EndpointRow; secret: string }> {
  const env = await environment(caller);
  const position = await changeLog.position(caller.deps.db);
  return createEndpoint(caller.deps.db, env, caller.companyId, input, position);
}

/** Changes an endpoint; enabling it resumes delivery at once. */
export async function changeEndpoint(caller: WebhookCaller, id: string, changes: EndpointChanges): Promise<EndpointRow> {
  const row = await updateEndpoint(caller.deps.db, await environment(caller), caller.companyId, id, changes);
  if (row.enabled === 1) wakeDelivery(caller.deps);
  return row;
}

/** A new secret; the previous one keeps signing beside it until `previousUntil`. */
export async function rotateEndpointSecret(caller: WebhookCaller, id: string): Promise<{ secret: string; previousUntil: number }> {
  return rotateSecret(caller.deps.db, await environment(caller), caller.companyId, id);
}

/** Queues a `webhook.test` message; answers its message id. */
export async function sendTestMessage(caller: WebhookCaller, id: string): Promise<string> {
  const { deps } = caller;
  const endpoint = await findEndpoint(deps.db, caller.companyId, id);
  const now = deps.clock.now();
  const messageId = await queueTestMessage(deps.db, endpoint.id, now, formatInstant(now, await companyTimezone(caller)));
  wakeDelivery(deps);
  return messageId;
}

/** Sends a delivery's message again; answers its message id. */
export async function retryEndpointDelivery(caller: WebhookCaller, id: string, deliveryId: string): Promise<string> {
  const { deps } = caller;
  const endpoint = await findEndpoint(deps.db, caller.companyId, id);
  const now = deps.clock.now();
  const messageId = await retryDelivery(deps.db, changeLog, endpoint, deliveryId, now, formatInstant(now, await companyTimezone(caller)));
  wakeDelivery(deps);
  return messageId;
}

function instantParameter(name: 'from' | 'to', value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw badRequest('validation_failed', `Body field /${name} must be an ISO 8601 instant.`, [{ path: `/${name}`, message: 'must be an ISO 8601 instant' }]);
  return ms;
}

/** Queues the changes of [from, to) the endpoint's types select, again; answers how many. */
export async function replayPeriod(caller: WebhookCaller, id: string, period: { from: string; to: string }): Promise<number> {
  const from = instantParameter('from', period.from);
  const to = instantParameter('to', period.to);
  if (from >= to) throw badRequest('invalid_period', 'The period is empty: from must be before to.', [{ path: '/to', message: 'must be after from' }]);
  const { deps } = caller;
  const endpoint = await findEndpoint(deps.db, caller.companyId, id);
  const queued = await queueReplay(deps.db, changeLog, endpoint, from, to, deps.clock.now());
  wakeDelivery(deps);
  return queued;
}
