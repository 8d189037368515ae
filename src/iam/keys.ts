// Signing keys live in the database so every instance signs and verifies with the same set.
// Rotation publishes a new key before it signs: the JWKS is read from the table, so every instance
// publishes a key from the moment its row commits, while signing starts at activates_at (by default
// the JWKS cache lifetime and more later); a retired key stays published until every token it signed
// has expired. A leaked key is withdrawn instead: it leaves the JWKS and stops verifying at once, and
// a key that signs takes its place in the same transaction.
//
// The private JWK is sealed with the secret box (SECRETS_KEY, src/platform/sealed-secrets.ts), bound
// to its kid: a copy of the database or a backup mints no tokens. Rows written before keys were sealed
// hold the JWK itself; they are sealed in place at start-up (and by `wfs reseal-secrets`), and a key is
// unsealed once, when the key ring (src/iam/key-ring.ts) first loads it, never per token.
import type { JsonWebKey } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { onPostgres, type Db } from '../platform/db/database.ts';
import { resealStale, SealedSecretError, type SecretBox } from '../platform/sealed-secrets.ts';
import { newId } from '../platform/ids.ts';
import { notFound } from '../platform/errors.ts';
import { changeEvent, OPERATOR, recordAudit } from './audit.ts';

export const SIGNING_ALG = 'ES256';

export interface PublishedKey {
  kid: string;
  activatesAt: number;
  retiredAt: number | null;
  publicJwk: JWK;
}

/**
 * Whether a key signs at `now`: activated and not yet retired. Of those the newest signs; a key
 * retired before it activated (rotated again meanwhile) never does.
 */
export function signsAt(activatesAt: number, retiredAt: number | null, now: number): boolean {
  return activatesAt <= now && (retiredAt === null || retiredAt > now);
}

/** Whether a key not yet active will sign once it activates. */
function willSign(activatesAt: number, retiredAt: number | null, now: number): boolean {
  return activatesAt > now && (retiredAt === null || retiredAt > activatesAt);
}

/** The additional data a private JWK is sealed with: moved to another key's row, it does not open. */
export function signingKeyContext(kid: string): string {
  return `signing_key:${kid}`;
}

/** A row written before keys were sealed holds the JWK's JSON; a sealed value reads `v1.`/`v2.…`. */
function isPlain(privateJwk: string): boolean {
  return privateJwk.startsWith('{');
}

type KeyRow = { kid: string; private_jwk: string };

/** Seals one plain row in place, unless another instance already did (the first writer wins). */
async function sealPlainRow(db: Db, box: SecretBox, row: KeyRow): Promise<boolean> {
  const updated = await db
    .updateTable('signing_keys')
    .set({ private_jwk: box.seal(row.private_jwk, signingKeyContext(row.kid)) })
    .where('kid', '=', row.kid)
    .where('private_jwk', '=', row.private_jwk)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Seals every row still holding its private JWK in clear; returns how many this call sealed. */
export async function sealPlainSigningKeys(db: Db, box: SecretBox): Promise<number> {
  const rows = await db.selectFrom('signing_keys').select(['kid', 'private_jwk']).where('private_jwk', 'like', '{%').execute();
  let count = 0;
  for (const row of rows) if (await sealPlainRow(db, box, row)) count += 1;
  return count;
}

/**
 * For `wfs reseal-secrets`: seals again the keys an older SECRETS_KEY sealed, then those still in clear
 * (after the sealed ones opened: a command run with the wrong key stops before sealing any).
 */
export async function resealSigningKeys(db: Db, box: SecretBox): Promise<number> {
  const rows = await db.selectFrom('signing_keys').select(['kid', 'private_jwk']).where('private_jwk', 'not like', '{%').execute();
  const resealed = await resealStale(box, rows, {
    sealed: (row) => row.private_jwk,
    context: (row) => signingKeyContext(row.kid),
    store: (row, value) => db.updateTable('signing_keys').set({ private_jwk: value }).where('kid', '=', row.kid).where('private_jwk', '=', row.private_jwk).execute(),
  });
  return resealed + (await sealPlainSigningKeys(db, box));
}

/**
 * The private JWK of a row. A plain row (sealed neither at start-up nor since: an older release wrote
 * it during an upgrade) is sealed now; a sealed one that does not open stops here, with no fallback.
 */
export async function privateJwkOf(db: Db, box: SecretBox, row: KeyRow): Promise<JsonWebKey> {
  if (!isPlain(row.private_jwk)) return unseal(box, row);
  await sealPlainRow(db, box, row);
  return JSON.parse(row.private_jwk) as JsonWebKey;
}

function unseal(box: SecretBox, row: KeyRow): JsonWebKey {
  try {
    return JSON.parse(box.open(row.private_jwk, signingKeyContext(row.kid))) as JsonWebKey;
  } catch (error) {
    if (!(error instanceof SealedSecretError)) throw error;
    throw new Error(
      `Signing key ${row.kid} cannot be unsealed: ${error.message} Start with the SECRETS_KEY that sealed it (during a rotation, that key in SECRETS_KEY_PREVIOUS); a database first run without SECRETS_KEY keeps its development key in app_secrets (docs/sso.md, "SECRETS_KEY and its rotation").`,
      { cause: error },
    );
  }
}

/** When a key stops signing and leaves the JWKS; both null while no newer key is scheduled. */
interface Retirement {
  retiredAt: number | null;
  unpublishAt: number | null;
}

const SIGNING_UNTIL_REPLACED: Retirement = { retiredAt: null, unpublishAt: null };

async function createKeyRow(db: Db, box: SecretBox, now: number, activatesAt: number, retirement = SIGNING_UNTIL_REPLACED): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = newId('key');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
  await db
    .insertInto('signing_keys')
    .values({
      kid,
      alg: SIGNING_ALG,
      private_jwk: box.seal(JSON.stringify(privateJwk), signingKeyContext(kid)),
      public_jwk: JSON.stringify(publicJwk),
      created_at: now,
      activates_at: activatesAt,
      retired_at: retirement.retiredAt,
      unpublish_at: retirement.unpublishAt,
    })
    .execute();
  return kid;
}

/**
 * Seals the keys stored in clear before keys were sealed, and creates the first key when the database
 * has none (a fresh install signs at once). Safe with several instances starting at once.
 */
export async function ensureSigningKey(db: Db, box: SecretBox, now = Date.now()): Promise<void> {
  await sealPlainSigningKeys(db, box);
  const existing = await db.selectFrom('signing_keys').select('kid').limit(1).executeTakeFirst();
  if (!existing) await createKeyRow(db, box, now, now);
}

/** The keys published (and so verifying) at `now`, newest activation first; the caller selects. */
export function publishedKeyRows(db: Db, now: number) {
  return db
    .selectFrom('signing_keys')
    .where((eb) => eb.or([eb('unpublish_at', 'is', null), eb('unpublish_at', '>', now)]))
    .orderBy('activates_at', 'desc');
}

export interface RotationOptions {
  /** Seconds before the new key signs: at least how long instances cache the key set. */
  activateInSeconds: number;
  /** Seconds a retired key must stay published: the longest token lifetime plus leeway. */
  retainSeconds: number;
  now?: number;
}

/**
 * Rotation and withdrawal read the key table and then change it: on PostgreSQL each locks the rows
 * first, so two operators acting at once take turns (SQLite runs one writing transaction at a time).
 */
async function lockKeyTable(trx: Db): Promise<void> {
  if (onPostgres(trx)) await trx.selectFrom('signing_keys').select('kid').forUpdate().execute();
}

/**
 * The keys in use must open with this box, else a new key would be sealed with a SECRETS_KEY the
 * instances lack (an operator's shell without it) and stop them all when they load it.
 */
async function assertBoxOpensKeysInUse(trx: Db, box: SecretBox): Promise<void> {
  const inUse = await trx.selectFrom('signing_keys').select(['kid', 'private_jwk']).where('retired_at', 'is', null).execute();
  for (const row of inUse) if (!isPlain(row.private_jwk)) unseal(box, row);
}

export async function rotateSigningKey(db: Db, box: SecretBox, options: RotationOptions): Promise<{ kid: string; activatesAt: number }> {
  const now = options.now ?? Date.now();
  const activatesAt = now + options.activateInSeconds * 1000;
  return db.transaction().execute(async (trx) => {
    await lockKeyTable(trx);
    await assertBoxOpensKeysInUse(trx, box);
    // Every key still signing (or scheduled to) stops when the new one starts.
    await trx
      .updateTable('signing_keys')
      .set({ retired_at: activatesAt, unpublish_at: activatesAt + options.retainSeconds * 1000 })
      .where('retired_at', 'is', null)
      .execute();
    const kid = await createKeyRow(trx, box, now, activatesAt);
    await recordAudit(trx, { event: changeEvent(OPERATOR), outcome: 'success', actor: OPERATOR, detail: 'signing_key_rotated', context: { kid, activatesAt: new Date(activatesAt).toISOString() } }, now);
    return { kid, activatesAt };
  });
}

export interface WithdrawalOptions {
  /** Seconds a replaced key stays published: as for a rotation (a replacement may retire later). */
  retainSeconds: number;
  now?: number;
}

export interface Withdrawal {
  kid: string;
  withdrawnAt: number;
  /** The key created to sign at once, when the withdrawn key was the one signing; null otherwise. */
  replacement: { kid: string; activatesAt: number } | null;
}

type PublishedRow = { kid: string; activates_at: number; retired_at: number | null; unpublish_at: number | null };

/**
 * Withdraws a published key at once (a leak): it leaves the JWKS and the set that verifies, so every
 * token it signed is refused (each instance within its key-ring reload, KEY_REFRESH_MS), whatever
 * its expiry. The service is never left without a key that signs: when the withdrawn key is the one
 * signing now (or none signs), a new key is created in the same transaction and signs at once: the
 * older keys are retired and never sign again. A key scheduled to activate later keeps its
 * activation; the replacement signs until then.
 */
export async function withdrawSigningKey(db: Db, box: SecretBox, kid: string, options: WithdrawalOptions): Promise<Withdrawal> {
  const now = options.now ?? Date.now();
  return db.transaction().execute(async (trx) => {
    await lockKeyTable(trx);
    const published = await publishedKeyRows(trx, now).select(['kid', 'activates_at', 'retired_at', 'unpublish_at']).execute();
    const withdrawn = published.find((row) => row.kid === kid);
    if (!withdrawn) throw notFound(`No published signing key ${kid} (unknown, withdrawn, or every token it signed has expired).`);
    const signing = published.find((row) => signsAt(row.activates_at, row.retired_at, now));
    if (withdrawn.activates_at > now) await passOnScheduledRetirement(trx, withdrawn);
    const others = published.filter((row) => row.kid !== kid);
    const replacement = signing === undefined || signing.kid === kid ? await createReplacement(trx, box, others, now, options.retainSeconds) : null;
    await trx
      .updateTable('signing_keys')
      .set({ retired_at: Math.min(withdrawn.retired_at ?? now, now), unpublish_at: now })
      .where('kid', '=', kid)
      .execute();
    await recordAudit(trx, { event: changeEvent(OPERATOR), outcome: 'success', actor: OPERATOR, detail: 'signing_key_withdrawn', context: { kid, replacementKid: replacement?.kid ?? null } }, now);
    return { kid, withdrawnAt: now, replacement };
  });
}

/**
 * A key withdrawn before it activated will not take over from the keys it was to retire: they keep
 * signing and stay published as long as it would have (until the next scheduled key, or for good).
 */
async function passOnScheduledRetirement(trx: Db, withdrawn: PublishedRow): Promise<void> {
  await trx
    .updateTable('signing_keys')
    .set({ retired_at: withdrawn.retired_at, unpublish_at: withdrawn.unpublish_at })
    .where('retired_at', '=', withdrawn.activates_at)
    .where('kid', '!=', withdrawn.kid)
    .execute();
}

/** A key that signs from `now`, retiring when the earliest key already scheduled activates. */
async function createReplacement(trx: Db, box: SecretBox, others: PublishedRow[], now: number, retainSeconds: number): Promise<{ kid: string; activatesAt: number }> {
  await assertBoxOpensKeysInUse(trx, box);
  const scheduled = others.filter((row) => willSign(row.activates_at, row.retired_at, now)).at(-1);
  const retirement = scheduled ? { retiredAt: scheduled.activates_at, unpublishAt: scheduled.activates_at + retainSeconds * 1000 } : SIGNING_UNTIL_REPLACED;
  return { kid: await createKeyRow(trx, box, now, now, retirement), activatesAt: now };
}
