// Secrets the service must read back (an SSO provider's client secret) are sealed with AES-256-GCM
// under SECRETS_KEY. Each sealed value names its key (`v1.<key id>.<iv>.<ciphertext+tag>`, the key id
// being the first bytes of the key's SHA-256), so the key can rotate: the new key seals, and the keys
// in SECRETS_KEY_PREVIOUS still open what they sealed until everything has been sealed again.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {}

/** The key id a sealed value carries: 8 base64url characters of the key's SHA-256. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

export class SecretBox {
  readonly #current: Buffer;
  readonly #currentId: string;
  readonly #keys = new Map<string, Buffer>();

  /** `current` seals and opens; `previous` keys only open (during a rotation). Each is 32 bytes. */
  constructor(current: Buffer, previous: Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== 32) throw new SecretBoxError('A secrets key must be 32 bytes.');
      this.#keys.set(keyId(key), key);
    }
    this.#current = current;
    this.#currentId = keyId(current);
  }

  get currentKeyId(): string {
    return this.#currentId;
  }

  /** `context` binds the value to its use (a provider id, say): a value moved elsewhere fails to open. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current, iv);
    cipher.setAAD(Buffer.from(`${VERSION}.${this.#currentId}.${context}`));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${this.#currentId}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  open(value: string, context: string): string {
    const [version, id = '', iv = '', sealed = ''] = value.split('.');
    const key = this.#keys.get(id);
    if (version !== VERSION) throw new SecretBoxError('The sealed value has an unknown format.');
    if (!key) throw new SecretBoxError(`The sealed value was made with key ${id}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS.`);
    const bytes = Buffer.from(sealed, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`${VERSION}.${id}.${context}`));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('The sealed value does not open: it was altered, or belongs elsewhere.');
    }
  }

  /** Whether a value is sealed with an older key (and should be sealed again). */
  isStale(value: string): boolean {
    return value.split('.')[1] !== this.#currentId;
  }
}
