// The whole database as Kysely sees it: each feature declares its own tables beside its code.
import type { IamTables } from '../../iam/tables.ts';
import type { CompanyTables } from '../../company/tables.ts';
import type { InboundTables } from '../../inbound/tables.ts';
import type { TimeclockTables } from '../../timeclock/tables.ts';
import type { SsoTables } from '../../sso/tables.ts';

export interface Database extends IamTables, CompanyTables, InboundTables, TimeclockTables, SsoTables {}
