// Opaque identifiers and secrets. Identifiers carry a short prefix so an operator can tell an
// employee id from a shift id in a log line; the random part is 96 bits.
import { createHash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

// Each randomBytes() call is a trip into OpenSSL (with a getpid() system call for its fork check):
// about 5 µs here, paid several times per token issued. Identifiers instead take their bits from a
// pool refilled 4 KiB at a time, as crypto.randomUUID() does; each byte is still used only once.
const ID_BYTES = 12;
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function nextRandomBytes(): Buffer {
  if (poolOffset + ID_BYTES > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + ID_BYTES);
  poolOffset += ID_BYTES;
  return bytes;
}

export function newId(prefix: string): string {
  return `${prefix}_${nextRandomBytes().toString('base64url')}`;
}

/** A secret with `bytes` bytes of randomness, base64url-encoded. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
