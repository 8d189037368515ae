// The whole database as Kysely sees it: each feature declares its own tables beside its code.
import type { TenancyTables } from '../../tenancy/tables.ts';
import type { IamTables } from '../../iam/tables.ts';
import type { CompanyTables } from '../../company/tables.ts';
import type { InboundTables } from '../../inbound/tables.ts';
import type { TimeclockTables } from '../../timeclock/tables.ts';
import type { SsoTables } from '../../sso/tables.ts';
import type { WebhookTables } from '../../webhooks/tables.ts';
import type { ConsoleTables } from '../../console/tables.ts';
import type { ChangeTables } from '../../changes/tables.ts';

export interface Database extends TenancyTables, IamTables, CompanyTables, InboundTables, TimeclockTables, ConsoleTables, ChangeTables, WebhookTables, SsoTables {}
