// Loads the benchmark company through importCompanyData, the path `wfs import` takes: the staff in
// one document, then the shifts a few days per document (each import reads the company's stored
// rows to diff against, so one giant document would hold one huge transaction for minutes).
import { sql } from 'kysely';
import type { AppContext } from '../src/app/context.ts';
import { importCompanyData } from '../src/company/import.ts';
import { addDays, today } from '../src/platform/period.ts';
import { shiftDocument, staffDocument, type DatasetShape } from './dataset.ts';
import { BENCH_TIMEZONE } from './tenant.ts';

export interface LoadedCompany {
  shifts: number;
  seconds: number;
  /** today − 8: the first day the feed serves. */
  firstDate: string;
  days: number;
}

const DAYS_PER_IMPORT = 8;

export async function loadCompany(ctx: AppContext, companyId: string, shape: DatasetShape & { days: number }): Promise<LoadedCompany> {
  const started = performance.now();
  const firstDate = addDays(today(BENCH_TIMEZONE), -8);
  await importCompanyData(ctx.db, companyId, staffDocument(shape));
  let shifts = 0;
  for (let day = 0; day < shape.days; day += DAYS_PER_IMPORT) {
    const days = Math.min(DAYS_PER_IMPORT, shape.days - day);
    const counts = await importCompanyData(ctx.db, companyId, shiftDocument(addDays(firstDate, day), days, shape));
    shifts += counts.shifts.created;
  }
  const seconds = (performance.now() - started) / 1000;
  await settleAfterLoad(ctx);
  return { shifts, seconds, firstDate, days: shape.days };
}

/**
 * After a bulk load PostgreSQL vacuums, analyses and checkpoints in the background, on the same 2
 * cores as the service and the load generator, whenever its thresholds and timers say so: possibly
 * inside a measurement. Doing it now, before any, measures the steady state. CHECKPOINT needs
 * superuser or pg_checkpoint: best effort.
 */
async function settleAfterLoad(ctx: AppContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  await sql`vacuum (analyze)`.execute(ctx.db);
  await sql`checkpoint`.execute(ctx.db).catch(() => undefined);
}
