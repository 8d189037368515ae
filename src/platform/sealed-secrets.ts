// Secrets the service must use again later in clear (a webhook signing secret, an SSO client secret)
// cannot be hashed: they are sealed with AES-256-GCM instead. The key is SECRETS_KEY (CONTRACT §8);
// while it is unset, every instance shares a key generated once and kept in the database, which
// protects a leaked backup of one table but not of the whole database: development only.
//
// A sealed value reads `v2.<key id>.<iv>.<ciphertext+tag>` (base64url; the key id is the first
// characters of the key's SHA-256), so the key can rotate: the new SECRETS_KEY seals, and the keys in
// SECRETS_KEY_PREVIOUS still open what they sealed until it has been sealed again (docs/sso.md).
// Values of the first format, `v1.<iv>.<ciphertext+tag>`, name no key: every known key is tried.
// The value's purpose (and owning row) goes in as additional data, so it cannot be moved elsewhere.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { sharedSecret } from './db/shared-secret.ts';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealedSecretError extends Error {}

/** The key id a sealed value carries: 8 base64url characters of the key's SHA-256. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

function openWith(key: Buffer, iv: string, body: string, aad: string): string | undefined {
  const bytes = Buffer.from(body, 'base64url');
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url')).setAAD(Buffer.from(aad));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export class SecretBox {
  readonly #current: Buffer;
  readonly #currentId: string;
  readonly #keys = new Map<string, Buffer>();

  /** `key` seals and opens; `previous` keys only open (during a rotation). Each is 32 bytes. */
  constructor(key: Buffer, previous: readonly Buffer[] = []) {
    for (const each of [key, ...previous]) {
      if (each.length !== 32) throw new Error('a secret box needs 32-byte keys');
      this.#keys.set(keyId(each), each);
    }
    this.#current = key;
    this.#currentId = keyId(key);
  }

  /** Seals `secret`; `context` (the purpose and the owning row's id) must be given again to open it. */
  seal(secret: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#current, iv).setAAD(Buffer.from(`v2.${this.#currentId}.${context}`));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v2.${this.#currentId}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const parts = sealed.split('.');
    if (parts[0] === 'v1' && parts.length === 3) {
      for (const key of this.#keys.values()) {
        const opened = openWith(key, parts[1] ?? '', parts[2] ?? '', context);
        if (opened !== undefined) return opened;
      }
      throw new SealedSecretError('The sealed value does not open: it was altered, belongs elsewhere, or its key is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS.');
    }
    const [version, id = '', iv = '', body = ''] = parts;
    if (version !== 'v2' || parts.length !== 4) throw new SealedSecretError('not a sealed secret');
    const key = this.#keys.get(id);
    if (!key) throw new SealedSecretError(`The sealed value was made with key ${id}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS.`);
    const opened = openWith(key, iv, body, `v2.${id}.${context}`);
    if (opened === undefined) throw new SealedSecretError('The sealed value does not open: it was altered, or belongs elsewhere.');
    return opened;
  }

  /** Whether a value was sealed with another key than the current one (and should be sealed again). */
  isStale(sealed: string): boolean {
    const parts = sealed.split('.');
    return parts[0] !== 'v2' || parts[1] !== this.#currentId;
  }
}

const boxes = new WeakMap<Db, Promise<SecretBox>>();

/**
 * The secret box of this database: SECRETS_KEY when set, else the database's own key (made by the
 * first instance that asks). `onGeneratedKey` hears once that the development fallback is in use.
 */
export function secretBox(db: Db, config: Pick<Config, 'secretsKey' | 'secretsKeyPrevious'>, onGeneratedKey: () => void = () => {}): Promise<SecretBox> {
  let box = boxes.get(db);
  if (!box) {
    box = config.secretsKey
      ? Promise.resolve(new SecretBox(config.secretsKey, config.secretsKeyPrevious))
      : sharedSecret(db, 'secrets_key').then((value) => {
          onGeneratedKey();
          return new SecretBox(Buffer.from(value, 'base64url'), config.secretsKeyPrevious);
        });
    box.catch(() => boxes.delete(db));
    boxes.set(db, box);
  }
  return box;
}

/** Where a kind of sealed value lives: how to read it and its context off a row, and how to write it back. */
export interface SealedColumn<Row> {
  sealed(row: Row): string | null;
  context(row: Row): string;
  /** Writes the new value only where the row still holds the old one (a concurrent change wins). */
  store(row: Row, value: string): Promise<unknown>;
}

/**
 * Seals again with the current key each value of `rows` that an older key sealed (after a SECRETS_KEY
 * rotation, with the old key in SECRETS_KEY_PREVIOUS). Returns how many were sealed again.
 */
export async function resealStale<Row>(box: SecretBox, rows: readonly Row[], column: SealedColumn<Row>): Promise<number> {
  let count = 0;
  for (const row of rows) {
    const sealed = column.sealed(row);
    if (sealed === null || !box.isStale(sealed)) continue;
    const context = column.context(row);
    await column.store(row, box.seal(box.open(sealed, context), context));
    count += 1;
  }
  return count;
}
