// The whole database as Kysely sees it: each feature declares its own tables beside its code.
import type { IamTables } from '../../iam/tables.ts';
import type { CompanyTables } from '../../company/tables.ts';

export interface Database extends IamTables, CompanyTables {}
