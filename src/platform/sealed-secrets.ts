// Secrets the service must use again later in clear (a webhook signing secret, an SSO client secret)
// cannot be hashed: they are sealed with AES-256-GCM instead. The key is SECRETS_KEY (CONTRACT §8);
// while it is unset, every instance shares a key generated once and kept in the database, which
// protects a leaked backup of one table but not of the whole database: development only.
//
// A sealed value reads `v1.<iv>.<ciphertext+tag>` (base64url). The key's purpose goes in as
// additional data, so a value sealed for one purpose (or row) cannot be moved to another.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { sharedSecret } from './db/shared-secret.ts';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('a secret box needs a 32-byte key');
    this.#key = key;
  }

  /** Seals `secret`; `context` (the purpose and the owning row's id) must be given again to open it. */
  seal(secret: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, iv).setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const [version, iv, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !body) throw new Error('not a sealed secret');
    const bytes = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv(ALGORITHM, this.#key, Buffer.from(iv, 'base64url')).setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

const boxes = new WeakMap<Db, Promise<SecretBox>>();

/**
 * The secret box of this database: SECRETS_KEY when set, else the database's own key (made by the
 * first instance that asks). `onGeneratedKey` hears once that the development fallback is in use.
 */
export function secretBox(db: Db, config: Pick<Config, 'secretsKey'>, onGeneratedKey: () => void = () => {}): Promise<SecretBox> {
  let box = boxes.get(db);
  if (!box) {
    box = config.secretsKey
      ? Promise.resolve(new SecretBox(config.secretsKey))
      : sharedSecret(db, 'secrets_key').then((value) => {
          onGeneratedKey();
          return new SecretBox(Buffer.from(value, 'base64url'));
        });
    box.catch(() => boxes.delete(db));
    boxes.set(db, box);
  }
  return box;
}
