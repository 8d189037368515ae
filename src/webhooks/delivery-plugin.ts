// Runs this instance's webhook dispatcher for as long as the app runs: started when the app is ready,
// closed (attempts in flight finished, leases released) when it closes.
import type { App } from '../platform/http.ts';
import type { WebhookDeps } from './deps.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { Db } from '../platform/db/database.ts';
import { secretBox } from '../platform/sealed-secrets.ts';
import { changeLog } from './change-stream.ts';
import { WebhookDispatcher, type DeliveryObserver } from './dispatcher.ts';

/**
 * This instance's dispatcher, by the database handle it delivers from: the endpoints API and the
 * console each get their own options object, but one context (one handle) runs one dispatcher.
 */
const dispatchers = new WeakMap<Db, WebhookDispatcher>();

/** Tells this instance's dispatcher there is work (a message queued, an endpoint enabled). */
export function wakeDelivery(deps: Pick<WebhookDeps, 'db'>): void {
  dispatchers.get(deps.db)?.wake();
}

/** Seconds, from a quick local receiver to a message that waited through retries for a day. */
const DELIVERY_LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86_400];

function deliveryMetrics(metrics: Metrics, deps: WebhookDeps): DeliveryObserver {
  const attempts = metrics.histogram('wfs_webhook_attempt_duration_seconds', 'Webhook delivery attempts by outcome (success: a 2xx in time): from the request to the answer\'s status, or to the failure.', ['outcome']);
  const latency = metrics.histogram('wfs_webhook_delivery_latency_seconds', 'From a change\'s occurrence to its successful delivery to an endpoint: includes the time it waited behind failing messages and retries.', [], DELIVERY_LATENCY_BUCKETS);
  metrics.gauge('wfs_webhook_backlog', 'Webhook messages waiting: queued by requests (test, replay, retry), plus the failing message at the head of each enabled endpoint.', async () => {
    const queued = await deps.db.selectFrom('webhook_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const failing = await deps.db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('enabled', '=', 1).where('head_attempt', '>', 0).executeTakeFirstOrThrow();
    return Number(queued.n) + Number(failing.n);
  });
  return {
    attempted: (success, seconds) => attempts.labels(success ? 'success' : 'failure').observe(seconds),
    delivered: (seconds) => latency.observe(seconds),
  };
}

export async function webhookDelivery(app: App, { deps }: { deps: WebhookDeps }): Promise<void> {
  const dispatcher = new WebhookDispatcher({
    db: deps.db,
    dialect: deps.dialect,
    clock: deps.clock,
    box: () => secretBox(deps.db, deps.config),
    stream: changeLog,
    timeoutMs: deps.config.webhookTimeoutMs,
    schedule: deps.config.webhookRetrySchedule,
    policy: { allowInsecure: deps.config.webhookAllowInsecure },
    pollMs: deps.config.webhookPollMs,
    deliveryRetentionMs: deps.config.changesRetentionSeconds * 1000,
    observer: deliveryMetrics(deps.metrics, deps),
    onError: (error) => app.log.error({ err: error }, 'webhook delivery failed'),
  });
  dispatchers.set(deps.db, dispatcher);
  let unsubscribe = () => {};
  app.addHook('onReady', async () => {
    // A committed change (here, or on another instance through the notifier) is looked for at once.
    unsubscribe = deps.changeNotifier.subscribeAll(() => dispatcher.changed());
    dispatcher.start();
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    await dispatcher.close();
    dispatchers.delete(deps.db);
  });
}
