// TOTP secrets must be readable by the service (it computes the expected code), so they are sealed
// rather than hashed: AES-256-GCM under a key every instance shares through the database. A copy of
// the console_users table alone does not give away anyone's authenticator.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Db } from '../platform/db/database.ts';
import { sharedSecret } from '../platform/db/shared-secret.ts';

export class Sealer {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  static async fromDatabase(db: Db): Promise<Sealer> {
    return new Sealer(Buffer.from(await sharedSecret(db, 'console_totp_key'), 'base64url'));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv = '', body = '', tag = ''] = sealed.split('.');
    if (version !== 'v1') throw new Error('unknown sealed-secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
