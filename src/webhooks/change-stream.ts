// What the webhooks read from the change log (src/changes/, CONTRACT §7), in one place: the position
// an endpoint starts from, the changes after a position, and the changes of a period (replay). The
// dispatcher takes it as a parameter, so its tests could hand it another log; the app hands it this.
import type { Db } from '../platform/db/database.ts';
import type { Change } from '../changes/change-log.ts';
import { changesBetween, periodHoldsMoreThan, readChangeWindow, readableSeq, type PeriodOptions } from '../changes/change-reads.ts';

export type { Change };

export interface ChangeWindow {
  changes: Change[];
  /** Every change of the company up to this seq has been looked at (when the page is not full). */
  throughSeq: number;
}

/**
 * A period of changes to replay: recorded in [fromMs, toMs), of `types` (undefined for every type),
 * with a seq above `originSeq` (the endpoint's own changes: those committed after its creation).
 */
export interface Period {
  fromMs: number;
  toMs: number;
  types: readonly string[] | undefined;
  originSeq: number;
}

export interface ChangeStream {
  /** The newest readable change's seq (0 when none): an endpoint created now starts after it. */
  position(db: Db): Promise<number>;
  /** Readable changes with seq > afterSeq, in seq order; `types` undefined for every type. */
  after(db: Db, companyId: string, afterSeq: number, limit: number, types: readonly string[] | undefined): Promise<ChangeWindow>;
  /** Up to `limit` changes of the period with seq > afterSeq, in seq order. */
  between(db: Db, companyId: string, period: Period, afterSeq: number, limit: number): Promise<Change[]>;
  /** Whether the period holds more than `count` changes (without reading them). */
  holdsMoreThan(db: Db, companyId: string, period: Period, count: number): Promise<boolean>;
}

function periodOptions({ fromMs, toMs, types, originSeq }: Period, afterSeq = 0): PeriodOptions {
  return { fromInstant: new Date(fromMs).toISOString(), toInstant: new Date(toMs).toISOString(), afterSeq: Math.max(originSeq, afterSeq), ...(types ? { types } : {}) };
}

export const changeLog: ChangeStream = {
  position: (db) => readableSeq(db),
  after: (db, companyId, afterSeq, limit, types) => readChangeWindow(db, companyId, { afterSeq, limit, ...(types ? { types } : {}) }),
  between: (db, companyId, period, afterSeq, limit) => changesBetween(db, companyId, { ...periodOptions(period, afterSeq), limit }),
  holdsMoreThan: (db, companyId, period, count) => periodHoldsMoreThan(db, companyId, periodOptions(period), count),
};
