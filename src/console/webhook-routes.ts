// Webhook endpoints of a company (CONTRACT §6, §7): the list and the create form (the signing secret
// shown once, after a step-up), an endpoint's page with rotation (the old secret keeps signing for
// 24 hours), enable / disable, a test message, replay of a period and the delivery log with retry.
// Endpoints belong to a company, as in the endpoints API: every address names the company, which must
// be the console user's organisation's, and the endpoint is looked up within it (another's is 404).
// Every action goes through src/webhooks/operations.ts and is audited with the console user as actor;
// one that shows no secret answers 303 back to the endpoint's page, so a reload repeats nothing.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import { findEndpoint, presentEndpoint } from '../webhooks/endpoints.ts';
import { CHANGE_TYPES } from '../webhooks/schemas.ts';
import { changeEndpoint, companyTimezone, deliveryPage, endpointPage, registerEndpoint, replayPeriod, retryEndpointDelivery, rotateEndpointSecret, sendTestMessage, type WebhookCaller } from '../webhooks/operations.ts';
import type { Console } from './routes.ts';
import { actorOf, auditConsole } from './audit.ts';
import { orShowProblem } from './forms.ts';
import { companyOf } from './organisation.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';
import { COMPANY_SECTIONS } from './navigation.ts';
import { checkedTypes, instant, noticeOf } from './webhook-forms.ts';

const Form = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 128 })),
  url: Type.Optional(Type.String({ maxLength: 2000 })),
  types: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 })])),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
});
const Page = Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 2000 })) });
/** After an action the endpoint's page is fetched again (so reloading it sends nothing twice), saying what was done. */
const EndpointPage = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 2000 })),
  done: Type.Optional(Type.String({ maxLength: 16 })),
  message: Type.Optional(Type.String({ maxLength: 100 })),
  queued: Type.Optional(Type.Integer({ minimum: 0 })),
});
const CompanyParams = Type.Object({ companyId: Type.String({ maxLength: 64 }) });
const EndpointParams = Type.Object({ companyId: Type.String({ maxLength: 64 }), endpointId: Type.String({ maxLength: 100 }) });
const DeliveryParams = Type.Object({ companyId: Type.String({ maxLength: 64 }), endpointId: Type.String({ maxLength: 100 }), deliveryId: Type.String({ maxLength: 100 }) });

const ENDPOINTS_PER_PAGE = 50;
const DELIVERIES_PER_PAGE = 25;

interface Typed {
  url?: string;
  types?: string[];
  description?: string;
  from?: string;
  to?: string;
}

/** What a page shows besides its data: the answer's status, the page of the listing, a form's outcome. */
interface Shown {
  status?: number;
  cursor?: string;
  message?: string;
  notice?: string;
  typed?: Typed;
}

export async function webhookRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;
  const orgOf = (request: FastifyRequest) => request.consoleSession!.user.organisationId;
  const listPath = (companyId: string) => `/companies/${companyId}/webhooks`;
  const endpointPath = (companyId: string, endpointId: string) => `${listPath(companyId)}/${endpointId}`;
  const backTo = (reply: FastifyReply, companyId: string, endpointId: string, done: Record<string, string>) =>
    reply.redirect(con.url(`${endpointPath(companyId, endpointId)}?${new URLSearchParams(done).toString()}`), 303);

  /** The company's endpoints as its owner: a company of another organisation is a 404 here. */
  async function callerFor(request: FastifyRequest, companyId: string): Promise<WebhookCaller> {
    const company = await companyOf(deps.db, orgOf(request), companyId);
    return { deps, companyId: company.id, log: request.log };
  }

  async function audit(request: FastifyRequest, detail: string, context: Record<string, unknown>): Promise<void> {
    const { user } = request.consoleSession!;
    await auditConsole(deps.db, { event: 'console_change', outcome: 'success', organisationId: user.organisationId, actor: actorOf(user), address: request.ip, detail, context }, deps.clock.now());
  }

  async function listView(request: FastifyRequest, reply: FastifyReply, companyId: string, { status = 200, cursor, ...shown }: Shown = {}): Promise<FastifyReply> {
    const organisationId = orgOf(request);
    const company = await companyOf(deps.db, organisationId, companyId);
    const [organisation, page] = await Promise.all([requireOrganisation(deps.db, organisationId), endpointPage({ deps, companyId }, { limit: ENDPOINTS_PER_PAGE, ...(cursor ? { cursor } : {}) })]);
    return con.render(request, reply, 'webhooks', {
      title: `Webhooks · ${company.name}`, organisation, company, companySections: COMPANY_SECTIONS, currentSection: '/webhooks',
      endpoints: page.data, nextCursor: page.nextCursor, messageTypes: CHANGE_TYPES, stepUp: con.stepUpDue(request, listPath(companyId)), typed: {}, ...shown,
    }, status);
  }

  async function endpointView(request: FastifyRequest, reply: FastifyReply, companyId: string, endpointId: string, { status = 200, cursor, ...shown }: Shown = {}): Promise<FastifyReply> {
    const organisationId = orgOf(request);
    const company = await companyOf(deps.db, organisationId, companyId);
    const row = await findEndpoint(deps.db, company.id, endpointId);
    const [organisation, timezone, deliveries] = await Promise.all([
      requireOrganisation(deps.db, organisationId),
      companyTimezone({ deps, companyId }),
      deliveryPage({ deps, companyId }, endpointId, { limit: DELIVERIES_PER_PAGE, ...(cursor ? { cursor } : {}) }),
    ]);
    const now = deps.clock.now();
    const previousSecretUntil = row.previous_secret_until !== null && row.previous_secret_until > now ? row.previous_secret_until : null;
    return con.render(request, reply, 'webhook', {
      title: `Webhook ${row.url}`, organisation, company, endpoint: presentEndpoint(row, timezone), previousSecretUntil,
      deliveries: deliveries.data, nextCursor: deliveries.nextCursor, newest: cursor === undefined, stepUp: con.stepUpDue(request, endpointPath(companyId, endpointId)), typed: {}, ...shown,
    }, status);
  }

  app.get('/console/companies/:companyId/webhooks', { config: { consoleAccess: 'member' }, schema: { params: CompanyParams, querystring: Page } }, async (request, reply) => listView(request, reply, request.params.companyId, { ...request.query }));

  app.post('/console/companies/:companyId/webhooks', { config: { consoleAccess: 'admin' }, schema: { params: CompanyParams, body: Form } }, async (request, reply) => {
    const { companyId } = request.params;
    const stepUp = con.stepUpDue(request, listPath(companyId));
    if (stepUp) return reply.redirect(stepUp, 303);
    const caller = await callerFor(request, companyId);
    const { url = '', description = '' } = request.body;
    const typed: Typed = { url, description, types: [request.body.types ?? []].flat() };
    return orShowProblem(async () => {
      const types = checkedTypes(request.body.types);
      const { row, secret } = await registerEndpoint(caller, { url, ...(types ? { types } : {}), ...(description.trim() ? { description: description.trim() } : {}) });
      await audit(request, 'webhook_endpoint_created', { companyId, endpointId: row.id, url: row.url, types: types ?? null });
      return con.render(request, reply, 'webhook-secret', { title: 'Webhook endpoint created', heading: 'Webhook endpoint created', companyId, endpointId: row.id, url: row.url, secret, previousSecretUntil: null });
    }, (status, message) => listView(request, reply, companyId, { status, message, typed }));
  });

  app.get('/console/companies/:companyId/webhooks/:endpointId', { config: { consoleAccess: 'member' }, schema: { params: EndpointParams, querystring: EndpointPage } }, async (request, reply) => {
    const { cursor, ...done } = request.query;
    return endpointView(request, reply, request.params.companyId, request.params.endpointId, { ...(cursor ? { cursor } : {}), notice: noticeOf(done) });
  });

  app.post('/console/companies/:companyId/webhooks/:endpointId/rotate-secret', { config: { consoleAccess: 'admin' }, schema: { params: EndpointParams, body: Form } }, async (request, reply) => {
    const { companyId, endpointId } = request.params;
    const stepUp = con.stepUpDue(request, endpointPath(companyId, endpointId));
    if (stepUp) return reply.redirect(stepUp, 303);
    const caller = await callerFor(request, companyId);
    return orShowProblem(async () => {
      const { secret, previousUntil } = await rotateEndpointSecret(caller, endpointId);
      const row = await findEndpoint(deps.db, companyId, endpointId);
      await audit(request, 'webhook_secret_rotated', { companyId, endpointId, url: row.url });
      return con.render(request, reply, 'webhook-secret', { title: 'New webhook secret', heading: 'New signing secret', companyId, endpointId, url: row.url, secret, previousSecretUntil: previousUntil });
    }, (status, message) => endpointView(request, reply, companyId, endpointId, { status, message }));
  });

  for (const enabled of [false, true]) {
    app.post(enabled ? '/console/companies/:companyId/webhooks/:endpointId/enable' : '/console/companies/:companyId/webhooks/:endpointId/disable', { config: { consoleAccess: 'admin' }, schema: { params: EndpointParams, body: Form } }, async (request, reply) => {
      const { companyId, endpointId } = request.params;
      const row = await changeEndpoint(await callerFor(request, companyId), endpointId, { enabled });
      await audit(request, enabled ? 'webhook_endpoint_enabled' : 'webhook_endpoint_disabled', { companyId, endpointId, url: row.url });
      return backTo(reply, companyId, endpointId, { done: enabled ? 'enabled' : 'disabled' });
    });
  }

  app.post('/console/companies/:companyId/webhooks/:endpointId/test', { config: { consoleAccess: 'admin' }, schema: { params: EndpointParams, body: Form } }, async (request, reply) => {
    const { companyId, endpointId } = request.params;
    const messageId = await sendTestMessage(await callerFor(request, companyId), endpointId);
    await audit(request, 'webhook_test_sent', { companyId, endpointId, messageId });
    return backTo(reply, companyId, endpointId, { done: 'test', message: messageId });
  });

  app.post('/console/companies/:companyId/webhooks/:endpointId/deliveries/:deliveryId/retry', { config: { consoleAccess: 'admin' }, schema: { params: DeliveryParams, body: Form } }, async (request, reply) => {
    const { companyId, endpointId, deliveryId } = request.params;
    const messageId = await retryEndpointDelivery(await callerFor(request, companyId), endpointId, deliveryId);
    await audit(request, 'webhook_delivery_retried', { companyId, endpointId, deliveryId, messageId });
    return backTo(reply, companyId, endpointId, { done: 'retried', message: messageId });
  });

  app.post('/console/companies/:companyId/webhooks/:endpointId/replay', { config: { consoleAccess: 'admin' }, schema: { params: EndpointParams, body: Form } }, async (request, reply) => {
    const { companyId, endpointId } = request.params;
    const caller = await callerFor(request, companyId);
    const typed: Typed = { from: request.body.from ?? '', to: request.body.to ?? '' };
    return orShowProblem(async () => {
      const period = { from: instant(typed.from), to: instant(typed.to) };
      const queued = await replayPeriod(caller, endpointId, period);
      await audit(request, 'webhook_period_replayed', { companyId, endpointId, ...period, queued });
      return backTo(reply, companyId, endpointId, { done: 'replayed', queued: String(queued) });
    }, (status, message) => endpointView(request, reply, companyId, endpointId, { status, message, typed }));
  });
}
