// Liveness and readiness (CONTRACT §1): /healthz answers while the process serves; /readyz only when
// the database (and Redis, when configured) answer, so a load balancer stops sending traffic to an
// instance that has lost them.
import { Type } from 'typebox';
import type { App } from './http.ts';
import type { Redis } from 'ioredis';
import { pingDatabase, type Db } from './db/database.ts';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('down')]))),
});

async function pingRedis(redis: Redis | undefined): Promise<boolean> {
  if (!redis) return true;
  try {
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}

export interface HealthOptions {
  db: Db;
  /** Checked only when configured. */
  redis: Redis | undefined;
}

export async function healthRoutes(app: App, { db, redis: configuredRedis }: HealthOptions): Promise<void> {
  app.get('/healthz', { schema: { tags: ['health'], operationId: 'healthz', summary: 'Liveness', description: 'Answers 200 while the process serves; checks nothing else.', security: [], response: { 200: Health } } }, async () => ({ status: 'ok' as const }));

  app.get(
    '/readyz',
    { schema: { tags: ['health'], operationId: 'readyz', summary: 'Readiness: database and Redis answer', description: 'Answers 200 when the database (and Redis, when REDIS_URL is set) answer, else 503 naming what is down; point a load balancer\'s readiness check here.', security: [], response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      const [database, redis] = await Promise.all([pingDatabase(db), pingRedis(configuredRedis)]);
      const checks: Record<string, 'ok' | 'down'> = { database: database ? 'ok' : 'down' };
      if (configuredRedis) checks.redis = redis ? 'ok' : 'down';
      const ready = database && redis;
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
    },
  );
}
