// The options each feature plugin receives: the parts of the run-time context it uses, and nothing
// more, so a feature cannot reach the rest (the signing keys from the company API, say). The frozen
// configuration is handed on as it is, typed to the settings each feature reads.
import type { AppContext } from './context.ts';
import type { IdentityDeps } from '../iam/identity-deps.ts';
import type { CompanyRouteDeps } from '../company/routes.ts';
import type { InboundRouteDeps } from '../inbound/routes.ts';
import type { TimeclockRouteDeps } from '../timeclock/routes.ts';
import type { ChangeRouteDeps } from '../changes/routes.ts';
import type { WebhookDeps } from '../webhooks/deps.ts';
import type { AdminRouteDeps } from '../admin/routes.ts';
import type { DemoCallbackDeps } from '../demo/callback.ts';
import type { ConsoleDeps } from '../console/routes.ts';
import type { SsoDeps } from '../sso/runtime.ts';

export function identityDeps({ db, clock, keys, revocations, config, redis, metrics }: AppContext): IdentityDeps {
  return { db, clock, keys, revocations, config, redis, metrics };
}

export function companyDeps({ db, clock, companies, cursorKey, responseCache }: AppContext): CompanyRouteDeps {
  return { db, clock, companies, cursorKey, responseCache };
}

export function inboundDeps({ db, clock, companies, cursorKey }: AppContext): InboundRouteDeps {
  return { db, clock, companies, cursorKey };
}

export function timeclockDeps({ db, clock, companies, cursorKey, metrics }: AppContext): TimeclockRouteDeps {
  return { db, clock, companies, cursorKey, metrics };
}

export function changeDeps({ db, cursorKey, changeNotifier }: AppContext): ChangeRouteDeps {
  return { db, cursorKey, changeNotifier };
}

export function webhookDeps({ db, dialect, clock, companies, cursorKey, metrics, changeNotifier, config }: AppContext): WebhookDeps {
  return { db, dialect, clock, companies, cursorKey, metrics, changeNotifier, config };
}

export function consoleDeps(ctx: AppContext): ConsoleDeps {
  return { ...webhookDeps(ctx), redis: ctx.redis, config: ctx.config };
}

export function adminDeps({ db, keys, config }: AppContext): AdminRouteDeps {
  return { db, keys, config };
}

export function demoCallbackDeps({ db, config }: AppContext): DemoCallbackDeps {
  return { db, config };
}

export function ssoDeps({ db, clock, config }: AppContext): SsoDeps {
  return { db, clock, config };
}
