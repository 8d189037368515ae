// The API Clients the client_credentials grant has seen lately, kept in memory, so that its hottest
// path reads no client row. A kept copy is never trusted alone: the grant of each token is inserted
// only if the client's row still holds what was checked (`ClientVersion`, issue-records.ts), and a
// secret that does not match the kept copy is checked again on a fresh read. So a client disabled,
// a secret rotated, a grant or an audience changed act at once, as when every request read the row.
import type { Db } from '../platform/db/database.ts';
import { ExpiringCache } from '../platform/expiring-cache.ts';
import { findClient, verifiedClient, type OAuthClient } from './clients.ts';

const KEPT_MS = 60_000;
const MAX_CLIENTS = 10_000;

export class ClientCache {
  readonly #db: Db;
  readonly #clients = new ExpiringCache<OAuthClient>(MAX_CLIENTS);

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * The enabled client whose live secret has the SHA-256 `digest` (undefined when no secret was
   * sent), or undefined: checked against the kept copy, and on a fresh read when that fails.
   */
  async verify(clientId: string, digest: string | undefined, now: number): Promise<OAuthClient | undefined> {
    const kept = this.#clients.get(clientId, now);
    const client = kept && verifiedClient(kept, digest, now);
    if (client) return client;
    const fresh = await findClient(this.#db, clientId);
    if (fresh) this.#clients.set(clientId, fresh, now + KEPT_MS);
    else this.#clients.delete(clientId);
    return verifiedClient(fresh, digest, now);
  }

  /** Drops the kept copy: the row changed since it was read. */
  forget(clientId: string): void {
    this.#clients.delete(clientId);
  }
}
