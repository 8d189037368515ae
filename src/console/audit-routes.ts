// The organisation's audit log (CONTRACT §6): filters by event type, client, user and date range,
// pages of 50 newest first, and the filtered view as a CSV download. Every role reads it.
import { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import { ProblemError, notFound } from '../platform/errors.ts';
import { auditEventsCsv, listAuditEvents, type AuditEventView, type AuditFilter } from '../iam/audit-log.ts';
import { listClients } from '../iam/organisation-reads.ts';
import { companiesOf } from '../tenancy/companies.ts';
import { requireUser } from '../iam/organisation-scope.ts';
import type { Console } from './routes.ts';
import { problemText } from './forms.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';

const Filter = Type.Object({
  type: Type.Optional(Type.String({ maxLength: 64 })),
  clientId: Type.Optional(Type.String({ maxLength: 64 })),
  userId: Type.Optional(Type.String({ maxLength: 64 })),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});
type FilterQuery = Static<typeof Filter>;

const PAGE_SIZE = 50;

/** The event types an organisation's log holds, for the filter's list. */
const EVENT_TYPES = [
  'login', 'client_authentication', 'token_issued', 'token_refreshed', 'token_revoked', 'refresh_token_reuse', 'code_replay',
  'console_sign_in', 'console_step_up', 'console_sign_out', 'console_invitation_accepted', 'console_change', 'operator_change',
  'sso_login', 'sso_login_failed',
];

function filterOf(query: FilterQuery): AuditFilter {
  return {
    ...(query.type ? { types: [query.type] } : {}),
    ...(query.clientId ? { clientId: query.clientId } : {}),
    ...(query.userId ? { userId: query.userId.trim() } : {}),
    ...(query.from ? { from: query.from } : {}),
    ...(query.to ? { to: query.to } : {}),
  };
}

/** The query string of the current filters (empty ones left out), with extra parameters. */
function filterQuery(query: FilterQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const key of ['type', 'clientId', 'userId', 'from', 'to'] as const) if (query[key]) params.set(key, query[key]);
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

export async function auditRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;
  const orgOf = (request: FastifyRequest) => request.consoleSession!.user.organisationId;

  async function organisationClients(organisationId: string) {
    const companies = await companiesOf(deps.db, organisationId);
    return (await Promise.all(companies.map((c) => listClients(deps.db, organisationId, c.id)))).flat();
  }

  /** A client or user id of another organisation in the filter is "not found", as in a URL. */
  async function requireOwnIds(organisationId: string, query: FilterQuery, clients: { id: string }[]): Promise<void> {
    if (query.clientId && !clients.some((c) => c.id === query.clientId)) throw notFound(`No API client ${query.clientId}.`);
    if (query.userId) await requireUser(deps.db, organisationId, query.userId.trim());
  }

  app.get('/console/audit', { config: { consoleAccess: 'member' }, schema: { querystring: Filter } }, async (request, reply) => {
    const organisationId = orgOf(request);
    const query = request.query;
    const [organisation, clients] = await Promise.all([requireOrganisation(deps.db, organisationId), organisationClients(organisationId)]);
    await requireOwnIds(organisationId, query, clients);
    let events: AuditEventView[] = [];
    let nextCursor: string | null = null;
    let message: string | undefined;
    try {
      ({ data: events, nextCursor } = await listAuditEvents(deps.db, organisationId, { ...filterOf(query), limit: PAGE_SIZE, ...(query.cursor ? { cursor: query.cursor } : {}) }));
    } catch (error) {
      if (!(error instanceof ProblemError) || error.status !== 400) throw error;
      message = problemText(error);
    }
    return con.render(request, reply, 'audit', {
      title: 'Audit log',
      organisation,
      clients,
      clientNames: Object.fromEntries(clients.map((c) => [c.id, c.name])),
      eventTypes: EVENT_TYPES,
      filter: query,
      events,
      message,
      csvUrl: con.url(`/audit.csv${filterQuery(query)}`),
      nextPageUrl: nextCursor ? con.url(`/audit${filterQuery(query, { cursor: nextCursor })}`) : undefined,
      firstPageUrl: query.cursor ? con.url(`/audit${filterQuery(query)}`) : undefined,
    }, message ? 400 : 200);
  });

  app.get('/console/audit.csv', { config: { consoleAccess: 'member' }, schema: { querystring: Filter } }, async (request, reply) => {
    const organisationId = orgOf(request);
    const filter = filterOf(request.query);
    await requireOwnIds(organisationId, request.query, await organisationClients(organisationId));
    // Checked before the first byte is sent: a bad filter is a page, not a broken download.
    await listAuditEvents(deps.db, organisationId, { ...filter, limit: 1 });
    return reply
      .header('Content-Disposition', 'attachment; filename="audit-log.csv"')
      .header('Cache-Control', 'no-store')
      .type('text/csv; charset=utf-8')
      .send(Readable.from(auditEventsCsv(deps.db, organisationId, filter)));
  });
}
