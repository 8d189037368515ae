// Companies and their API Clients: the company's client list and the create form (the secret shown
// once), and a client's page: redirect URIs, secret rotation with overlap (and ending it early),
// disabling and enabling, grants and the requests for more. Every action goes through the identity
// core with the console user as actor and the organisation as reach: another organisation's id is 404.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import { getClient, listClients } from '../iam/organisation-reads.ts';
import { companiesOf } from '../tenancy/companies.ts';
import { OPTIONAL_GRANTS, createClient } from '../iam/provisioning.ts';
import { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS, endSecretOverlap, rotateClientSecretWithOverlap, setClientDisabled, updateRedirectUris } from '../iam/client-admin.ts';
import { requestGrant } from '../iam/grant-requests.ts';
import type { Console } from './routes.ts';
import { actorOf } from './audit.ts';
import { lines, orShowProblem } from './forms.ts';
import { companyOf } from './organisation.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';
import { COMPANY_SECTIONS } from './navigation.ts';
import { consoleDateTime } from './format.ts';

const Form = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 128 })),
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  redirectUris: Type.Optional(Type.String({ maxLength: 50_000 })),
  overlapSeconds: Type.Optional(Type.String({ maxLength: 16 })),
  grant: Type.Optional(Type.String({ maxLength: 64 })),
  reason: Type.Optional(Type.String({ maxLength: 4000 })),
});
const CompanyParams = Type.Object({ companyId: Type.String({ maxLength: 64 }) });
const ClientParams = Type.Object({ clientId: Type.String({ maxLength: 64 }) });

/** The overlaps an admin picks from: up to 7 days, 24 hours preselected. */
const OVERLAPS: [number, string][] = [[3600, '1 hour'], [4 * 3600, '4 hours'], [12 * 3600, '12 hours'], [DEFAULT_OVERLAP_SECONDS, '24 hours'], [2 * 86400, '2 days'], [3 * 86400, '3 days'], [5 * 86400, '5 days'], [MAX_OVERLAP_SECONDS, '7 days']];

interface FormValues {
  name?: string;
  redirectUris?: string;
  reason?: string;
}

export async function clientRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;
  const now = () => deps.clock.now();
  const orgOf = (request: FastifyRequest) => request.consoleSession!.user.organisationId;
  const actor = (request: FastifyRequest) => actorOf(request.consoleSession!.user);

  async function companyPage(request: FastifyRequest, reply: FastifyReply, companyId: string, status = 200, extra: { message?: string; form?: FormValues } = {}): Promise<FastifyReply> {
    const organisationId = orgOf(request);
    const company = await companyOf(deps.db, organisationId, companyId);
    const [organisation, clients] = await Promise.all([requireOrganisation(deps.db, organisationId), listClients(deps.db, organisationId, companyId)]);
    return con.render(request, reply, 'company', { title: company.name, organisation, company, clients, companySections: COMPANY_SECTIONS, currentSection: '', stepUp: con.stepUpDue(request, `/companies/${companyId}`), ...extra }, status);
  }

  async function clientPage(request: FastifyRequest, reply: FastifyReply, clientId: string, status = 200, extra: { message?: string; notice?: string; form?: FormValues } = {}): Promise<FastifyReply> {
    const organisationId = orgOf(request);
    const client = await getClient(deps.db, organisationId, clientId, now());
    const [organisation, companies] = await Promise.all([requireOrganisation(deps.db, organisationId), companiesOf(deps.db, organisationId)]);
    const company = companies.find((c) => c.id === client.companyId);
    const pending = new Set(client.grantRequests.filter((r) => r.status === 'pending').map((r) => r.grant));
    const requestable = OPTIONAL_GRANTS.filter((g) => !client.grants.includes(g) && !pending.has(g));
    const overlapOptions = OVERLAPS.map(([seconds, label]) => ({ seconds, label, until: consoleDateTime(now() + seconds * 1000) }));
    return con.render(request, reply, 'client', { title: client.name, organisation, company, client, requestable, overlapOptions, stepUp: con.stepUpDue(request, `/clients/${clientId}`), ...extra }, status);
  }

  app.get('/console/companies/:companyId', { config: { consoleAccess: 'member' }, schema: { params: CompanyParams } }, async (request, reply) => companyPage(request, reply, request.params.companyId));

  app.post('/console/companies/:companyId/clients', { config: { consoleAccess: 'admin' }, schema: { params: CompanyParams, body: Form } }, async (request, reply) => {
    const { companyId } = request.params;
    const stepUp = con.stepUpDue(request, `/companies/${companyId}`);
    if (stepUp) return reply.redirect(stepUp, 303);
    const form = { name: request.body.name ?? '', redirectUris: request.body.redirectUris ?? '' };
    return orShowProblem(async () => {
      const created = await createClient(deps.db, orgOf(request), { companyId, name: form.name, redirectUris: lines(form.redirectUris) }, actor(request), now());
      return con.render(request, reply, 'client-secret', { title: 'API Client created', heading: `API Client ${form.name.trim()} created`, companyId, clientName: form.name.trim(), ...created });
    }, (status, message) => companyPage(request, reply, companyId, status, { message, form }));
  });

  app.get('/console/clients/:clientId', { config: { consoleAccess: 'member' }, schema: { params: ClientParams } }, async (request, reply) => clientPage(request, reply, request.params.clientId));

  app.post('/console/clients/:clientId/redirect-uris', { config: { consoleAccess: 'admin' }, schema: { params: ClientParams, body: Form } }, async (request, reply) => {
    const { clientId } = request.params;
    const text = request.body.redirectUris ?? '';
    return orShowProblem(async () => {
      await updateRedirectUris(deps.db, orgOf(request), clientId, lines(text), actor(request));
      return clientPage(request, reply, clientId, 200, { notice: 'Redirect URIs saved.' });
    }, (status, message) => clientPage(request, reply, clientId, status, { message, form: { redirectUris: text } }));
  });

  app.post('/console/clients/:clientId/rotate-secret', { config: { consoleAccess: 'admin' }, schema: { params: ClientParams, body: Form } }, async (request, reply) => {
    const { clientId } = request.params;
    const stepUp = con.stepUpDue(request, `/clients/${clientId}`);
    if (stepUp) return reply.redirect(stepUp, 303);
    const overlapSeconds = /^\d{1,7}$/.test(request.body.overlapSeconds ?? '') ? Number(request.body.overlapSeconds) : DEFAULT_OVERLAP_SECONDS;
    return orShowProblem(async () => {
      const client = await getClient(deps.db, orgOf(request), clientId, now());
      const rotated = await rotateClientSecretWithOverlap(deps.db, { clientId, overlapSeconds, organisationId: orgOf(request) }, actor(request), now());
      return con.render(request, reply, 'client-secret', { title: 'New client secret', heading: `New secret for ${client.name}`, companyId: client.companyId, clientName: client.name, ...rotated });
    }, (status, message) => clientPage(request, reply, clientId, status, { message }));
  });

  app.post('/console/clients/:clientId/end-overlap', { config: { consoleAccess: 'admin' }, schema: { params: ClientParams, body: Form } }, async (request, reply) => {
    const { clientId } = request.params;
    await endSecretOverlap(deps.db, clientId, actor(request), orgOf(request), now());
    return clientPage(request, reply, clientId, 200, { notice: 'The previous secret no longer works.' });
  });

  for (const disabled of [true, false]) {
    app.post(disabled ? '/console/clients/:clientId/disable' : '/console/clients/:clientId/enable', { config: { consoleAccess: 'admin' }, schema: { params: ClientParams, body: Form } }, async (request, reply) => {
      const { clientId } = request.params;
      await setClientDisabled(deps.db, orgOf(request), clientId, disabled, actor(request));
      return clientPage(request, reply, clientId, 200, { notice: disabled ? 'The client is disabled; its tokens are revoked.' : 'The client is enabled.' });
    });
  }

  app.post('/console/clients/:clientId/grant-requests', { config: { consoleAccess: 'admin' }, schema: { params: ClientParams, body: Form } }, async (request, reply) => {
    const { clientId } = request.params;
    const reason = request.body.reason ?? '';
    return orShowProblem(async () => {
      const asked = await requestGrant(deps.db, { clientId, grant: request.body.grant ?? '', reason, organisationId: orgOf(request) }, actor(request), now());
      return clientPage(request, reply, clientId, 200, { notice: `Requested the ${asked.grant} grant; support will decide.` });
    }, (status, message) => clientPage(request, reply, clientId, status, { message, form: { reason } }));
  });
}
