// What the webhooks read from the change log (CONTRACT §7), in one place: the position an endpoint
// starts from, the changes after a position, and the changes of a period (replay).
// The change log itself belongs to src/changes/; until it is on main this reads as an empty log.
import type { Db } from '../platform/db/database.ts';

export interface Change {
  seq: number;
  id: string;
  type: string;
  resourceType: string;
  resourceId: string;
  occurredAt: string;
  deleted: boolean;
  data: unknown;
}

export interface ChangeStream {
  /** The newest readable change's seq (0 when none): an endpoint created now starts after it. */
  position(db: Db, companyId: string): Promise<number>;
  /** Readable changes with seq > afterSeq, in seq order; `types` undefined for every type. */
  after(db: Db, companyId: string, afterSeq: number, limit: number, types: readonly string[] | undefined): Promise<Change[]>;
  /** Changes that occurred in [fromMs, toMs), in seq order. */
  between(db: Db, companyId: string, fromMs: number, toMs: number, types: readonly string[] | undefined): Promise<Change[]>;
}

export const changeLog: ChangeStream = {
  position: async () => 0,
  after: async () => [],
  between: async () => [],
};
