// Revocation must reach ID/access tokens on every instance within 5 seconds without a query per
// request: each instance keeps the set of revoked grant ids in memory and polls the grants table
// for newer revocations every REVOCATION_REFRESH_MS (1 s by default). The poll and its expiry run on
// the context's clock, so a test moves time instead of waiting for a poll.
//
// What a poll reads is decided by commit order, not by clocks (migration 0016, docs/identity.md):
// each read also returns the mark of what its snapshot could not see yet, and the next read starts
// there. A revocation whose write waited behind a lock or an import, or whose writer's clock is
// behind, is read at the first poll after it commits, however old its revoked_at.
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db/database.ts';
import { readRevocations, type RevocationMark } from './grants.ts';

export class RevocationList {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #lookbackMs: number;
  /** Grant id → when this instance learnt of it (its own clock), which is what the expiry counts from. */
  readonly #revoked = new Map<string, number>();
  #mark: RevocationMark | undefined;
  #stopPolling: (() => void) | undefined;

  /** `lookbackMs`: the longest access-token lifetime; a revocation known that long no longer matters. */
  constructor(db: Db, clock: Clock, lookbackMs: number) {
    this.#db = db;
    this.#clock = clock;
    this.#lookbackMs = lookbackMs;
  }

  async refresh(): Promise<void> {
    // The first read goes by the writers' clocks, twice a lifetime back: a revocation stamped that
    // long before it committed, or by a clock that far behind, is beyond any timeout the service sets.
    const from = this.#mark ? { mark: this.#mark } : { revokedAfter: this.#clock.now() - 2 * this.#lookbackMs };
    const read = await readRevocations(this.#db, from);
    const now = this.#clock.now();
    for (const id of read.grantIds) if (!this.#revoked.has(id)) this.#revoked.set(id, now);
    this.#mark = read.mark;
    for (const [id, at] of this.#revoked) if (at < now - this.#lookbackMs) this.#revoked.delete(id);
  }

  isRevoked(grantId: string): boolean {
    return this.#revoked.has(grantId);
  }

  /** Marks a grant revoked locally at once (the database row is written by the caller). */
  remember(grantId: string, at = this.#clock.now()): void {
    this.#revoked.set(grantId, at);
  }

  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.#stopPolling = this.#clock.every(intervalMs, () => this.refresh().catch(onError));
  }

  stop(): void {
    this.#stopPolling?.();
  }
}
