// The key ring: each process's in-memory view of the signing-key table (src/iam/keys.ts owns the
// table, its rotation and withdrawal): the key that signs now, the keys that verify, and the JWKS.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../platform/db/database.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import { systemClock, type Clock } from '../platform/clock.ts';
import { SingleFlight } from '../platform/single-flight.ts';
import { SIGNING_ALG, privateJwkOf, publishedKeyRows, signsAt, type PublishedKey } from './keys.ts';

interface LoadedKey extends PublishedKey {
  /** A KeyObject, which (unlike a non-extractable CryptoKey) can be handed to the signing thread. */
  privateKey: KeyObject;
  publicKey: CryptoKey;
}

/**
 * An in-memory view of the key table, reloaded every `refreshMs` (a server also polls at that pace,
 * `start`, so that tokens verified before and cached see a withdrawal without any new token arriving)
 * and whenever a token names a kid it has not seen (at most once a second, so forged kids cannot
 * hammer the database). Activation, retention and both intervals are read on `clock` (the context's:
 * tests move it). A key that does not unseal fails the load (and so start-up, which loads once:
 * src/app/bootstrap.ts).
 */
export class KeyRing {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #refreshMs: number;
  readonly #clock: Clock;
  #keys: LoadedKey[] = [];
  /** The kids of #keys, for the check of every cached token (a lookup that allocates nothing). */
  #kids = new Set<string>();
  #loadedAt = 0;
  #lastMissReload = 0;
  #loading: Promise<void> | undefined;
  #stopPolling: (() => void) | undefined;
  readonly #publishedReads = new SingleFlight<JWK[]>();

  constructor(db: Db, box: SecretBox, refreshMs = 1_000, clock: Clock = systemClock) {
    this.#db = db;
    this.#box = box;
    this.#refreshMs = refreshMs;
    this.#clock = clock;
  }

  async #load(): Promise<void> {
    const now = this.#clock.now();
    const rows = await publishedKeyRows(this.#db, now).selectAll().execute();
    const cached = new Map(this.#keys.map((k) => [k.kid, k]));
    this.#keys = await Promise.all(
      rows.map(async (row) => {
        const known = cached.get(row.kid);
        // A later rotation (or withdrawal) may have changed its retirement since.
        if (known) return { ...known, retiredAt: row.retired_at };
        const publicJwk = JSON.parse(row.public_jwk) as JWK;
        return {
          kid: row.kid,
          activatesAt: row.activates_at,
          retiredAt: row.retired_at,
          publicJwk,
          privateKey: createPrivateKey({ key: await privateJwkOf(this.#db, this.#box, row), format: 'jwk' }),
          publicKey: (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey,
        };
      }),
    );
    this.#kids = new Set(this.#keys.map((key) => key.kid));
    this.#loadedAt = now;
  }

  async #fresh(force = false): Promise<LoadedKey[]> {
    if (force || this.#clock.now() - this.#loadedAt > this.#refreshMs) {
      this.#loading ??= this.#load().finally(() => {
        this.#loading = undefined;
      });
      await this.#loading;
    }
    return this.#keys;
  }

  /**
   * Re-reads the key table now, e.g. right after this process rotated or withdrew a key: a load
   * already under way may have read the table before that change committed, so it is waited for and
   * not joined.
   */
  async reload(): Promise<void> {
    await this.#loading?.catch(() => undefined);
    await this.#fresh(true);
  }

  /**
   * Reloads every `refreshMs` until `stop`: a key withdrawn by another process leaves the set within
   * that interval (this process's operator API reloads at once). The reload (joining one under way)
   * is not handed back to the clock: nothing waits for a poll (whoever must, calls `reload`),
   * and on SQLite one may queue behind an import holding the connection, which must not hold up
   * whoever waits for the clock's other tasks (the revocation poll's, which reads beside it).
   */
  start(onError: (error: unknown) => void): void {
    this.#stopPolling = this.#clock.every(this.#refreshMs, () => {
      this.#fresh(true).catch(onError);
    });
  }

  stop(): void {
    this.#stopPolling?.();
  }

  /**
   * Whether a token signed by `kid`, verified earlier, may still be accepted: its key is still in the
   * set as last loaded (synchronous, for cached tokens; a withdrawn key has left it).
   */
  verifies(kid: string): boolean {
    return this.#kids.has(kid);
  }

  /** The newest key whose activation time has come and whose retirement has not. */
  async signingKey(): Promise<{ kid: string; privateKey: KeyObject }> {
    const now = this.#clock.now();
    const signs = (k: LoadedKey) => signsAt(k.activatesAt, k.retiredAt, now);
    let key = (await this.#fresh()).find(signs);
    if (!key) key = (await this.#fresh(true)).find(signs);
    if (!key) throw new Error('No active signing key: run `wfs rotate-signing-key`.');
    return key;
  }

  async verificationKey(kid: string): Promise<CryptoKey | undefined> {
    let key = (await this.#fresh()).find((k) => k.kid === kid);
    if (!key && this.#clock.now() - this.#lastMissReload > 1000) {
      this.#lastMissReload = this.#clock.now();
      key = (await this.#fresh(true)).find((k) => k.kid === kid);
    }
    return key?.publicKey;
  }

  /**
   * The JWKS: read from the table, not from this ring (reloaded every `refreshMs`), so that a key
   * rotated by another instance or by `wfs` is published here at once (CONTRACT §2 and §5); requests
   * arriving together share one read.
   */
  async publishedKeys(): Promise<JWK[]> {
    return this.#publishedReads.run('jwks', () => this.#readPublished()).outcome;
  }

  async #readPublished(): Promise<JWK[]> {
    const rows = await publishedKeyRows(this.#db, this.#clock.now()).select('public_jwk').execute();
    return rows.map((row) => JSON.parse(row.public_jwk) as JWK);
  }
}
