// What issuing and renewing tokens need, and nothing more: the database, the clock, the signing keys,
// this instance's revocation list and the token settings. The application context satisfies it.
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db/database.ts';
import type { IssuanceSettings } from './issuance.ts';
import type { KeyRing } from './key-ring.ts';
import type { RevocationList } from './revocations.ts';

export interface IssuerDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly keys: KeyRing;
  readonly revocations: RevocationList;
  readonly config: IssuanceSettings & { readonly refreshChainMaxSeconds: number; readonly refreshGraceSeconds: number };
}
