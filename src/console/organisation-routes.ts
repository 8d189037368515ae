// The organisation's home page: its companies, each leading to its API Clients.
import type { App } from '../platform/http.ts';
import type { Console } from './routes.ts';
import { requireOrganisation } from '../tenancy/organisations.ts';
import { companiesOf } from '../tenancy/companies.ts';

export async function organisationRoutes(app: App, { console: con }: { console: Console }): Promise<void> {
  const { deps } = con;

  app.get('/console', { config: { consoleAccess: 'member' } }, async (request, reply) => {
    const { organisationId } = request.consoleSession!.user;
    const organisation = await requireOrganisation(deps.db, organisationId);
    const companies = await companiesOf(deps.db, organisationId);
    return con.render(request, reply, 'home', { title: organisation.name, organisation, companies });
  });
}
