// What webhooks need of the context (src/app/feature-options.ts builds it): the endpoints API, the
// dispatcher, and the console, which calls the same operations.
import type { Config } from '../platform/config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db, DialectName } from '../platform/db/database.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { CompanyCache } from '../tenancy/company-cache.ts';
import type { ChangeNotifier } from '../changes/notifier.ts';

export interface WebhookDeps {
  readonly db: Db;
  readonly dialect: DialectName;
  readonly clock: Clock;
  readonly companies: CompanyCache;
  readonly cursorKey: Buffer;
  readonly metrics: Metrics;
  readonly changeNotifier: ChangeNotifier;
  readonly config: Pick<Config, 'secretsKey' | 'secretsKeyPrevious' | 'webhookAllowInsecure' | 'webhookTimeoutMs' | 'webhookRetrySchedule' | 'webhookPollMs' | 'changesRetentionSeconds'>;
}
