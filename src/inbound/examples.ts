// Examples for the OpenAPI description of the inbound batches, in the restaurant of the company
// examples (src/platform/examples.ts and src/company/examples.ts): its departments, Europe/Amsterdam (+01:00 in November).
// ISO week 2026-W48 runs from Monday 2026-11-23 to Sunday 2026-11-29.
import { EXAMPLE_IDS } from '../platform/examples.ts';
import type { BatchOutcome } from './batch.ts';
import type { RevenueItem, RevenueItemInput } from './revenue.ts';
import type { WageBudgetItem, WageBudgetItemInput } from './wage-budget.ts';

const { kitchen, service } = EXAMPLE_IDS;

/** Sunday's takings per department and category, and the prognosis for the coming week. */
export const revenueBatchExample: { items: RevenueItemInput[] } = {
  items: [
    { departmentId: kitchen, date: '2026-11-22', kind: 'realised', amount: 1843.5, category: 'food' },
    { departmentId: service, date: '2026-11-22', kind: 'realised', amount: 612.25, category: 'drinks' },
    { departmentId: kitchen, week: '2026-W48', kind: 'prognosis', amount: 12500 },
  ],
};

/** The prognosis was sent before with another amount, so it is updated. */
export const revenueOutcomeExample: BatchOutcome = { received: 3, created: 2, updated: 1, unchanged: 0 };

/** `from=2026-11-22&to=2026-11-28`: the two day items, then the week that overlaps the period. */
export const revenueListExample: { data: RevenueItem[]; nextCursor: null } = {
  data: [
    { id: 'fig_C2vR8kWq1nZt5XbM', departmentId: kitchen, date: '2026-11-22', week: null, kind: 'realised', category: 'food', amount: 1843.5, updatedAt: '2026-11-23T06:15:02+01:00' },
    { id: 'fig_P7hL3sYd9mKx2QcT', departmentId: service, date: '2026-11-22', week: null, kind: 'realised', category: 'drinks', amount: 612.25, updatedAt: '2026-11-23T06:15:02+01:00' },
    { id: 'fig_G5nB1tXw6rJv8HzE', departmentId: kitchen, date: null, week: '2026-W48', kind: 'prognosis', category: null, amount: 12500, updatedAt: '2026-11-23T06:15:02+01:00' },
  ],
  nextCursor: null,
};

/** A day budget with hours for the kitchen, a week budget without hours for the service. */
export const wageBudgetBatchExample: { items: WageBudgetItemInput[] } = {
  items: [
    { departmentId: kitchen, date: '2026-11-23', amount: 1450, hours: 62.5 },
    { departmentId: service, week: '2026-W48', amount: 5200.75 },
  ],
};

export const wageBudgetOutcomeExample: BatchOutcome = { received: 2, created: 2, updated: 0, unchanged: 0 };

/** `from=2026-11-23`: both items start that day, so they are ordered by id. */
export const wageBudgetListExample: { data: WageBudgetItem[]; nextCursor: null } = {
  data: [
    { id: 'fig_A9kT4mQx2wVn7RdL', departmentId: kitchen, date: '2026-11-23', week: null, amount: 1450, hours: 62.5, updatedAt: '2026-11-22T18:40:31+01:00' },
    { id: 'fig_M3pW8cZr5yHb1JsK', departmentId: service, date: null, week: '2026-W48', amount: 5200.75, hours: null, updatedAt: '2026-11-22T18:40:31+01:00' },
  ],
  nextCursor: null,
};
