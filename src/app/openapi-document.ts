// The OpenAPI document a deployment serves, built in-process over a throw-away in-memory database:
// what the generators (client types, Postman collection) start from.
import { loadConfig } from '../platform/config.ts';
import { closeContext, createContext } from './bootstrap.ts';
import { buildApp } from './app.ts';

/** `env`: the deployment's settings (ADMIN_TOKEN set: the operator API is in the document). */
export async function servedOpenApiDocument(env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', BASE_URL: 'http://localhost:8080', ...env });
  const ctx = await createContext(config, { poll: false });
  try {
    const app = await buildApp(ctx, { logger: false });
    await app.ready();
    const document = app.swagger() as unknown as Record<string, unknown>;
    await app.close();
    return document;
  } finally {
    await closeContext(ctx);
  }
}
