// What the identity routes need from the composition layer (src/app/feature-options.ts builds it),
// and nothing more: what issuing needs, where the login pages live, the identity rate limit and the
// Redis that shares it between instances, and the counter of issued tokens. Each route file takes
// the part of it that it reads.
import type { Redis } from 'ioredis';
import type { Config } from '../platform/config.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { IssuerDeps } from './issuer.ts';

export interface IdentityDeps extends IssuerDeps {
  readonly config: IssuerDeps['config'] & Pick<Config, 'authUrl' | 'baseUrl' | 'authCodeTtl' | 'rateLimitTokenPerMinute'>;
  readonly redis: Redis | undefined;
  readonly metrics: Pick<Metrics, 'tokenIssued'>;
}
