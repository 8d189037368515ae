// A point-of-sale job: each night it pushes the realised revenue of the last days per department
// (one item per department and day) and a prognosis for next ISO week (one item per department and
// week), in one batch. A batch is all-or-nothing and idempotent, so the job can simply resend the
// last days every night: unchanged days come back as `unchanged`, corrected ones as `updated`.
//
//   npm run wfs -- login --base-url http://localhost:8080 --client-id … --client-secret …   (once)
//   npx node examples/pos-revenue.ts [--days 7] [--credentials-file FILE] [--dry-run]
//
// The till totals here are simulated (stable per department and day); a real job reads them from
// the point-of-sale system instead.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import { ApiError, type RevenueItem } from '../packages/client/src/index.ts';
import { clientFromCredentials, defaultCredentialsFile } from '../packages/client/src/file-store.ts';

const { values } = parseArgs({
  options: {
    days: { type: 'string', default: '7' },
    'credentials-file': { type: 'string', default: defaultCredentialsFile() },
    'dry-run': { type: 'boolean', default: false },
  },
});

/** The simulated till total of one department on one day: weekends busier, cents included. */
function tillTotal(departmentId: string, date: DateTime): number {
  const hash = createHash('sha256').update(`${departmentId}:${date.toISODate()}`).digest();
  const base = 800 + (hash.readUInt32BE(0) % 170_000) / 100;
  return Math.round(base * (date.weekday >= 6 ? 1.6 : 1) * 100) / 100;
}

const round2 = (amount: number): number => Math.round(amount * 100) / 100;

const client = clientFromCredentials(values['credentials-file']);
const { company, departments } = await client.configuration();
// "Today" is the company's: a job running at 00:30 in Amsterdam must not push a day still in progress.
const today = DateTime.now().setZone(company.timezone).startOf('day');
const days = Array.from({ length: Number(values.days) }, (_, i) => today.minus({ days: i + 1 }));
const nextWeek = today.plus({ weeks: 1 });

const items: RevenueItem[] = departments.flatMap((department) => {
  const realised = days.map((day) => ({ departmentId: department.id, date: day.toISODate() ?? '', kind: 'realised' as const, amount: tillTotal(department.id, day) }));
  // Prognosis: the last week's takings plus 3 %, for the whole of next ISO week.
  const lastWeek = days.slice(0, 7).reduce((sum, item) => sum + tillTotal(department.id, item), 0);
  const prognosis = { departmentId: department.id, week: nextWeek.toFormat("kkkk-'W'WW"), kind: 'prognosis' as const, amount: round2((lastWeek * 7) / Math.min(7, days.length) * 1.03) };
  return [...realised, prognosis];
});

console.log(`${company.name}: ${items.length} revenue items for ${departments.length} departments (${days.at(-1)?.toISODate()} … ${days[0]?.toISODate()}, prognosis ${nextWeek.toFormat("kkkk-'W'WW")})`);
if (values['dry-run']) {
  console.log(JSON.stringify({ items }, null, 2));
} else {
  try {
    const result = await client.createRevenue(items);
    console.log(`received ${result.received}: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged`);
  } catch (error) {
    // A refused batch stored nothing; the problem lists every bad item (errors[].path = /items/N/…).
    if (!(error instanceof ApiError)) throw error;
    console.error(`Batch refused: ${error.message}`);
    for (const { path, message } of error.problem.errors ?? []) console.error(`  ${path}: ${message}`);
    process.exitCode = 1;
  }
}
