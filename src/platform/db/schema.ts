// The whole database as Kysely sees it. The floor declares its own table here; every other module adds
// its tables from its own tables.ts by augmenting this interface, so the floor names no feature:
//   declare module '../platform/db/schema.ts' { interface Database extends CompanyTables {} }
// (A tables.ts is part of the type check because tsconfig includes all of src.)

/** Secrets every instance shares through the database (see shared-secret.ts). */
export interface AppSecretsTable {
  name: string;
  value: string;
  created_at: number;
}

export interface Database {
  app_secrets: AppSecretsTable;
}
