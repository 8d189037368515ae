// What every feature needs at run time, built once by the server (or a test) and handed to the app
// factory: configuration, the database, the signing keys and the revocation list.
import type { Redis } from 'ioredis';
import type { Config } from '../platform/config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db, DialectName } from '../platform/db/database.ts';
import type { KeyRing } from '../iam/key-ring.ts';
import type { RevocationList } from '../iam/revocations.ts';
import type { ResponseCache } from '../platform/response-cache.ts';
import type { CompanyCache } from '../tenancy/company-cache.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { ChangeNotifier } from '../changes/notifier.ts';
import type { ChangeRetention } from '../changes/retention.ts';

export interface AppContext {
  readonly config: Config;
  /** "Now" for every expiry, limit and "today"; tests move a ManualClock instead of sleeping. */
  readonly clock: Clock;
  readonly db: Db;
  readonly dialect: DialectName;
  readonly keys: KeyRing;
  readonly revocations: RevocationList;
  readonly redis: Redis | undefined;
  /** HMAC key for collection cursors, shared by every instance through the database. */
  readonly cursorKey: Buffer;
  /** Serialised import-derived responses by company data version. */
  readonly responseCache: ResponseCache;
  /** The companies' records (time zone, data version), read at most every few milliseconds. */
  readonly companies: CompanyCache;
  /** The figures GET /metrics exposes; features count their events here. */
  readonly metrics: Metrics;
  /** Wakes long polls and the webhooks dispatcher after changes commit, on every instance. */
  readonly changeNotifier: ChangeNotifier;
  /** Prunes the change log in the background. */
  readonly changeRetention: ChangeRetention;
}
