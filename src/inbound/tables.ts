// Row types of inbound figures. Revenue and wage budget share one table, told apart by `stream`,
// so one validated, set-based upsert serves both batches.
// A figure belongs to a day (`date`) or an ISO week (`week`); `period_key` is whichever is set and
// `period_start`..`period_end` are the days it covers (one day, or Monday..Sunday), for overlap
// queries. Amounts are integer minor units (cents), hours integer hundredths: never floats.

export type InboundStream = 'revenue' | 'wage_budget';

export interface InboundItemsTable {
  id: string;
  company_id: string;
  stream: InboundStream;
  /** No foreign key: figures outlive a department removed by a later import. */
  department_id: string;
  date: string | null;
  week: string | null;
  period_key: string;
  period_start: string;
  period_end: string;
  /** 'realised' | 'prognosis' for revenue; '' for wage budget. */
  kind: string;
  /** '' when the item has none, so the unique key never contains NULL (NULLs never collide). */
  category: string;
  amount_minor: number;
  hours_centi: number | null;
  created_at: number;
  updated_at: number;
}

export interface InboundTables {
  inbound_items: InboundItemsTable;
}

declare module '../platform/db/schema.ts' {
  interface Database extends InboundTables {}
}
