// GET /metrics (contract: addresses and configuration): the Prometheus text format, only with `Authorization: Bearer <METRICS_TOKEN>`;
// 404 while METRICS_TOKEN is unset. Also the hook that times every answer for it.
import { Type } from 'typebox';
import type { App } from './http.ts';
import type { Metrics } from './metrics.ts';
import { Problem, problemResponses } from './schemas.ts';
import { requireStaticBearer } from './static-bearer.ts';

/** Requests no route matched are one series, whatever their URL: raw URLs would grow without bound. */
const UNMATCHED = 'unmatched';

/**
 * Times every answer by route pattern and status. Installed on the root before the routes; only when
 * the figures can be read (about 1 µs a request, measured in docs/benchmarks.md).
 */
export function recordRequests(app: App, metrics: Metrics): void {
  if (!metrics.exposed) return;
  // Callback style: an async hook would cost a promise and a microtask on every request.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? UNMATCHED, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

export async function metricsRoutes(app: App, { metrics, token }: { metrics: Metrics; token: string | undefined }): Promise<void> {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['health'],
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description: 'Per-route latency histograms and status counts, event-loop delay, database pool and commit figures, token issuance and timeclock event counts, in the Prometheus text format (see docs/operations.md). Exists only when `METRICS_TOKEN` is set (`404` otherwise); send it as a Bearer token.',
        security: [{ metricsToken: [] }],
        response: { 200: { description: 'The Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: Type.String() } } }, ...problemResponses(404), 401: { ...Problem, description: 'Missing or wrong METRICS_TOKEN' } },
      },
    },
    async (request, reply) => {
      requireStaticBearer({ secret: token, realm: 'metrics', variable: 'METRICS_TOKEN', what: 'The metrics endpoint' }, request);
      return reply.type(metrics.registry.contentType).send(await metrics.text());
    },
  );
}
