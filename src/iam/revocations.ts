// Revocation must reach ID/access tokens on every instance within 5 seconds without a query per
// request: each instance keeps the set of revoked grant ids in memory and polls the grants table
// for newer revocations every REVOCATION_REFRESH_MS (1 s by default). The poll and its window run on
// the context's clock, so a test moves time instead of waiting for a poll.
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db/database.ts';
import { revokedSince } from './grants.ts';

export class RevocationList {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #lookbackMs: number;
  readonly #revoked = new Map<string, number>();
  #seenUpTo = 0;
  #stopPolling: (() => void) | undefined;

  /** `lookbackMs`: revocations older than the longest access-token lifetime no longer matter. */
  constructor(db: Db, clock: Clock, lookbackMs: number) {
    this.#db = db;
    this.#clock = clock;
    this.#lookbackMs = lookbackMs;
  }

  async refresh(): Promise<void> {
    const now = this.#clock.now();
    // Re-read a small overlap: a revocation committed late with an earlier timestamp is still seen.
    const since = this.#seenUpTo === 0 ? now - this.#lookbackMs : this.#seenUpTo - 10_000;
    for (const grant of await revokedSince(this.#db, since)) this.#revoked.set(grant.id, grant.revokedAt ?? now);
    this.#seenUpTo = now;
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
