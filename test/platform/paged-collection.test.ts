// The paged-collection helper every listing is built on (src/platform/paged-collection.ts), as a
// listing sees it: pages follow each other through signed cursors, every row exactly once, in order;
// a cursor resumes only the tenant, listing and filters it came from; the answer carries an ETag and
// a matching If-None-Match gets an empty 304; with a response cache, a page is read once per key.
// The listing here is a real table of the floor (app_secrets) on the test database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createDatabase, type Db } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrate.ts';
import { installErrorHandling, type App } from '../../src/platform/http.ts';
import { installValidators } from '../../src/platform/validation.ts';
import { afterPosition } from '../../src/platform/collection.ts';
import { pagedQuery, pagedResponses, replyPage, type Listing } from '../../src/platform/paged-collection.ts';
import { ResponseCache } from '../../src/platform/response-cache.ts';
import { freshDatabase, type FreshDatabase } from '../support/database.ts';

const Thing = Type.Object({ id: Type.String(), value: Type.String() });
type Thing = { id: string; value: string };
type Row = { name: string; value: string };

let database: FreshDatabase;
let db: Db;
let app: App;
/** How many rows each read of the listing asked for. */
const asked: number[] = [];

/** The tenant's rows (names `<tenant>/<nn>`), those whose value starts with `kind` when given, by name. */
function things(tenant: string, kind: string | undefined): Listing<Row, Thing> {
  return {
    rows: (count, after) => {
      asked.push(count);
      let query = db.selectFrom('app_secrets').select(['name', 'value']).where('name', 'like', `${tenant}/%`);
      if (kind !== undefined) query = query.where('value', 'like', `${kind}%`);
      if (after) query = query.where(afterPosition(['name'], after));
      return query.orderBy('name').limit(count).execute();
    },
    position: (row) => [row.name],
    present: (row) => ({ id: row.name, value: row.value }),
  };
}

before(async () => {
  database = await freshDatabase();
  db = createDatabase(database.url);
  await migrateToLatest(db);
  const rows = ['acme', 'zeta'].flatMap((tenant) => Array.from({ length: 7 }, (_, i) => ({ name: `${tenant}/${String(i).padStart(2, '0')}`, value: i % 2 === 0 ? `even ${i}` : `odd ${i}`, created_at: 1 })));
  await db.insertInto('app_secrets').values(rows).execute();

  app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
  installValidators(app);
  installErrorHandling(app, 'http://localhost');
  const key = randomBytes(32);
  const cache = new ResponseCache(1024 * 1024);
  // The tenant stands in for the token's company; `version` for its data version.
  const querystring = pagedQuery({ kind: Type.Optional(Type.String()) });
  app.get('/things', { schema: { querystring, response: pagedResponses(Thing, { data: [], nextCursor: null }, 400) } }, async (request, reply) => {
    const tenant = String(request.headers['x-tenant']);
    return replyPage(request, reply, { key, tenant, listing: '/things' }, things(tenant, request.query.kind));
  });
  app.get('/cached-things', { schema: { querystring, response: pagedResponses(Thing, { data: [], nextCursor: null }, 400) } }, async (request, reply) => {
    const tenant = String(request.headers['x-tenant']);
    const cached = { store: cache, key: [String(request.headers['x-version'])] };
    return replyPage(request, reply, { key, tenant, listing: '/cached-things' }, things(tenant, request.query.kind), cached);
  });
  await app.ready();
});

after(async () => {
  await app.close();
  await db.destroy();
  await database.drop();
});

interface PageBody {
  data: Thing[];
  nextCursor: string | null;
}

async function get(url: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url, headers: { 'x-tenant': 'acme', ...headers } });
}

async function page(url: string, headers: Record<string, string> = {}): Promise<PageBody> {
  const response = await get(url, headers);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<PageBody>();
}

test('following nextCursor reads every row once, in order, pages of `limit`, asking the listing for one row more', async () => {
  asked.length = 0;
  const seen: string[] = [];
  const sizes: number[] = [];
  let body = await page('/things?limit=3');
  for (;;) {
    sizes.push(body.data.length);
    seen.push(...body.data.map((thing) => thing.id));
    if (body.nextCursor === null) break;
    body = await page(`/things?limit=3&cursor=${encodeURIComponent(body.nextCursor)}`);
  }
  assert.deepEqual(seen, ['00', '01', '02', '03', '04', '05', '06'].map((n) => `acme/${n}`));
  assert.deepEqual(sizes, [3, 3, 1]);
  assert.deepEqual(asked, [4, 4, 4]);
});

test('a last page that is exactly full has no next cursor; without limit a page holds up to 500', async () => {
  const first = await page('/things?limit=6&kind=');
  assert.equal(first.data.length, 6);
  assert.ok(first.nextCursor);
  const last = await page(`/things?limit=1&kind=&cursor=${encodeURIComponent(first.nextCursor)}`);
  assert.deepEqual(last, { data: [{ id: 'acme/06', value: 'even 6' }], nextCursor: null });
  asked.length = 0;
  assert.equal((await page('/things')).data.length, 7);
  assert.deepEqual(asked, [501]);
});

test('a cursor resumes only its own tenant, listing and filters; the page size may change', async () => {
  const { nextCursor } = await page('/things?limit=2&kind=odd');
  assert.ok(nextCursor);
  const cursor = encodeURIComponent(nextCursor);
  assert.deepEqual((await page(`/things?limit=5&kind=odd&cursor=${cursor}`)).data.map((thing) => thing.id), ['acme/05']);
  const tampered = encodeURIComponent(nextCursor.replace('.', 'A.'));
  for (const [url, headers] of [
    [`/things?limit=2&kind=odd&cursor=${cursor}`, { 'x-tenant': 'zeta' }],
    [`/things?limit=2&kind=even&cursor=${cursor}`, {}],
    [`/things?limit=2&cursor=${cursor}`, {}],
    [`/cached-things?limit=2&kind=odd&cursor=${cursor}`, { 'x-version': '1' }],
    [`/things?limit=2&kind=odd&cursor=${tampered}`, {}],
    ['/things?cursor=not-a-cursor', {}],
  ] as const) {
    const response = await get(url, headers);
    assert.equal(response.statusCode, 400, url);
    assert.equal(response.json<{ code: string }>().code, 'invalid_cursor', url);
  }
});

test('the query takes only its filters, limit (1 to 1000) and cursor', async () => {
  for (const url of ['/things?limit=0', '/things?limit=1001', '/things?limt=5']) {
    const response = await get(url);
    assert.equal(response.statusCode, 400, url);
    assert.equal(response.json<{ code: string }>().code, 'validation_failed', url);
  }
});

test('a page carries a strong ETag; If-None-Match with it is an empty 304 until the data changes', async () => {
  const response = await get('/things?limit=2');
  const etag = response.headers.etag as string;
  assert.match(etag, /^"[\w-]{27}"$/);
  assert.equal(response.headers['cache-control'], 'private, no-cache');
  const unchanged = await get('/things?limit=2', { 'if-none-match': etag });
  assert.equal(unchanged.statusCode, 304);
  assert.equal(unchanged.body, '');
  await db.updateTable('app_secrets').set({ value: 'even 0, changed' }).where('name', '=', 'acme/00').execute();
  const changed = await get('/things?limit=2', { 'if-none-match': etag });
  assert.equal(changed.statusCode, 200);
  assert.notEqual(changed.headers.etag, etag);
  assert.equal(changed.json<PageBody>().data[0]?.value, 'even 0, changed');
});

test('with a response cache a page is read once per key (the data version first), and revalidates by its ETag', async () => {
  asked.length = 0;
  const first = await get('/cached-things?limit=2', { 'x-tenant': 'zeta', 'x-version': '1' });
  await db.updateTable('app_secrets').set({ value: 'even 0, changed' }).where('name', '=', 'zeta/00').execute();
  const again = await get('/cached-things?limit=2', { 'x-tenant': 'zeta', 'x-version': '1' });
  assert.equal(again.body, first.body, 'the same version answers the stored page');
  assert.equal(again.headers.etag, first.headers.etag);
  assert.deepEqual(asked, [3]);
  assert.equal((await get('/cached-things?limit=2', { 'x-tenant': 'zeta', 'x-version': '1', 'if-none-match': first.headers.etag as string })).statusCode, 304);
  const next = await get('/cached-things?limit=2', { 'x-tenant': 'zeta', 'x-version': '2' });
  assert.equal(next.json<PageBody>().data[0]?.value, 'even 0, changed');
  assert.deepEqual(asked, [3, 3]);
  // Another tenant, limit or cursor is another key.
  assert.equal((await get('/cached-things?limit=2', { 'x-version': '2' })).json<PageBody>().data[0]?.id, 'acme/00');
  assert.equal((await get('/cached-things?limit=3', { 'x-tenant': 'zeta', 'x-version': '2' })).json<PageBody>().data.length, 3);
  assert.deepEqual(asked, [3, 3, 3, 4]);
});
