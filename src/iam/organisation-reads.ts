// What a console user reads of its organisation (CONTRACT §6): API Clients and API Users (its companies
// are tenancy's: companiesOf).
// Every read takes the organisation and finds nothing outside it: another organisation's id is
// "not found", exactly like an id that does not exist. No secret is ever read back (only hashes exist).
import type { Db } from '../platform/db/database.ts';
import { requireClient, requireCompany } from './organisation-scope.ts';
import { listGrantRequests, type GrantRequest } from './grant-requests.ts';

export interface ClientSummary {
  id: string;
  companyId: string;
  name: string;
  grants: string[];
  disabled: boolean;
  createdAt: string;
}

function iso(ms: number | string): string {
  return new Date(Number(ms)).toISOString();
}

/** The company's API Clients by name; a company of another organisation is a 404. */
export async function listClients(db: Db, organisationId: string, companyId: string): Promise<ClientSummary[]> {
  const company = await requireCompany(db, organisationId, companyId);
  const rows = await db.selectFrom('api_clients').select(['id', 'company_id', 'name', 'grants', 'disabled', 'created_at']).where('company_id', '=', company.id).orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, companyId: r.company_id, name: r.name, grants: JSON.parse(r.grants) as string[], disabled: r.disabled === 1, createdAt: iso(r.created_at) }));
}

export interface ClientDetail extends ClientSummary {
  redirectUris: string[];
  /** While a rotation with overlap runs: until when the previous secret is accepted (ISO 8601); else null. */
  previousSecretExpiresAt: string | null;
  /** The client's grant requests, newest first. */
  grantRequests: GrantRequest[];
}

export async function getClient(db: Db, organisationId: string, clientId: string, now = Date.now()): Promise<ClientDetail> {
  const client = await requireClient(db, organisationId, clientId);
  const overlapEnds = client.previous_secret_hash !== null && client.previous_secret_expires_at !== null ? Number(client.previous_secret_expires_at) : null;
  return {
    id: client.id,
    companyId: client.company_id,
    name: client.name,
    grants: JSON.parse(client.grants) as string[],
    disabled: client.disabled === 1,
    createdAt: iso(client.created_at),
    redirectUris: JSON.parse(client.redirect_uris) as string[],
    previousSecretExpiresAt: overlapEnds !== null && overlapEnds > now ? iso(overlapEnds) : null,
    grantRequests: await listGrantRequests(db, { organisationId, clientId: client.id }),
  };
}

export interface UserSummary {
  id: string;
  clientId: string;
  email: string;
  disabled: boolean;
  createdAt: string;
}

/** The client's API Users by email; a client of another organisation is a 404. */
export async function listUsers(db: Db, organisationId: string, clientId: string): Promise<UserSummary[]> {
  const client = await requireClient(db, organisationId, clientId);
  const rows = await db.selectFrom('api_users').select(['id', 'client_id', 'email', 'disabled', 'created_at']).where('client_id', '=', client.id).orderBy('email').execute();
  return rows.map((r) => ({ id: r.id, clientId: r.client_id, email: r.email, disabled: r.disabled === 1, createdAt: iso(r.created_at) }));
}
