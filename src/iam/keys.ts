// Signing keys live in the database so every instance signs and verifies with the same set.
// Rotation publishes a new key before it signs (activates_at lies ahead by the JWKS cache lifetime),
// and a retired key stays published until every token it signed has expired.
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';
import { systemClock, type Clock } from '../platform/clock.ts';

export const SIGNING_ALG = 'ES256';

export interface PublishedKey {
  kid: string;
  activatesAt: number;
  publicJwk: JWK;
}

interface LoadedKey extends PublishedKey {
  /** A KeyObject, which (unlike a non-extractable CryptoKey) can be handed to the signing thread. */
  privateKey: KeyObject;
  publicKey: CryptoKey;
}

async function createKeyRow(db: Db, now: number, activatesAt: number): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = newId('key');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
  await db
    .insertInto('signing_keys')
    .values({
      kid,
      alg: SIGNING_ALG,
      private_jwk: JSON.stringify(privateJwk),
      public_jwk: JSON.stringify(publicJwk),
      created_at: now,
      activates_at: activatesAt,
      retired_at: null,
      unpublish_at: null,
    })
    .execute();
  return kid;
}

/** Creates the first key when the database has none (a fresh install signs at once). */
export async function ensureSigningKey(db: Db, now = Date.now()): Promise<void> {
  const existing = await db.selectFrom('signing_keys').select('kid').limit(1).executeTakeFirst();
  if (!existing) await createKeyRow(db, now, now);
}

export interface RotationOptions {
  /** Seconds before the new key signs: at least how long instances cache the key set. */
  activateInSeconds: number;
  /** Seconds a retired key must stay published: the longest token lifetime plus leeway. */
  retainSeconds: number;
  now?: number;
}

export async function rotateSigningKey(db: Db, options: RotationOptions): Promise<{ kid: string; activatesAt: number }> {
  const now = options.now ?? Date.now();
  const activatesAt = now + options.activateInSeconds * 1000;
  return db.transaction().execute(async (trx) => {
    // Every key still signing (or scheduled to) stops when the new one starts.
    await trx
      .updateTable('signing_keys')
      .set({ retired_at: activatesAt, unpublish_at: activatesAt + options.retainSeconds * 1000 })
      .where('retired_at', 'is', null)
      .execute();
    const kid = await createKeyRow(trx, now, activatesAt);
    return { kid, activatesAt };
  });
}

/**
 * An in-memory view of the key table, reloaded every `refreshMs` and whenever a token names a kid it
 * has not seen (at most once a second, so forged kids cannot hammer the database). Activation,
 * retention and both intervals are read on `clock` (the context's: tests move it).
 */
export class KeyRing {
  readonly #db: Db;
  readonly #refreshMs: number;
  readonly #clock: Clock;
  #keys: LoadedKey[] = [];
  #loadedAt = 0;
  #lastMissReload = 0;
  #loading: Promise<void> | undefined;

  constructor(db: Db, refreshMs = 30_000, clock: Clock = systemClock) {
    this.#db = db;
    this.#refreshMs = refreshMs;
    this.#clock = clock;
  }

  async #load(): Promise<void> {
    const now = this.#clock.now();
    const rows = await this.#db
      .selectFrom('signing_keys')
      .selectAll()
      .where((eb) => eb.or([eb('unpublish_at', 'is', null), eb('unpublish_at', '>', now)]))
      .orderBy('activates_at', 'desc')
      .execute();
    const cached = new Map(this.#keys.map((k) => [k.kid, k]));
    this.#keys = await Promise.all(
      rows.map(async (row) => {
        const known = cached.get(row.kid);
        if (known) return known;
        const publicJwk = JSON.parse(row.public_jwk) as JWK;
        return {
          kid: row.kid,
          activatesAt: row.activates_at,
          publicJwk,
          privateKey: createPrivateKey({ key: JSON.parse(row.private_jwk) as JsonWebKey, format: 'jwk' }),
          publicKey: (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey,
        };
      }),
    );
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

  /** Re-reads the key table now, e.g. right after this process rotated the key. */
  async reload(): Promise<void> {
    await this.#fresh(true);
  }

  /** The newest key whose activation time has come. */
  async signingKey(): Promise<{ kid: string; privateKey: KeyObject }> {
    const now = this.#clock.now();
    let key = (await this.#fresh()).find((k) => k.activatesAt <= now);
    if (!key) key = (await this.#fresh(true)).find((k) => k.activatesAt <= now);
    if (!key) throw new Error('No active signing key: run `wfs migrate` or `wfs rotate-signing-key`.');
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

  async publishedKeys(): Promise<JWK[]> {
    return (await this.#fresh()).map((k) => k.publicJwk);
  }
}
