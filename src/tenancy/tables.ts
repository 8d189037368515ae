// Row types of the tenants: organisations and their companies. Instants are epoch milliseconds.
import type { Generated } from 'kysely';

export interface OrganisationsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface CompaniesTable {
  id: string;
  organisation_id: string;
  name: string;
  timezone: string;
  currency: string;
  locale: string;
  created_at: number;
  updated_at: number;
  /** Bumped by every import that changes the company's data (see response-cache.ts). */
  data_version: Generated<number>;
}

export interface TenancyTables {
  organisations: OrganisationsTable;
  companies: CompaniesTable;
}
