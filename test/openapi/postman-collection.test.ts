// The Postman collection (docs/wfs.postman_collection.json) is generated from the OpenAPI document
// by `npm run collection`: the committed file must be the generator's output, with the OAuth flow
// configured at collection level and one request per public operation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { COLLECTION_FILE, generateCollection } from '../../scripts/postman-collection.ts';

interface Item { name: string; item?: Item[]; request?: { method: string; url: { raw: string }; auth?: { type: string } } }
interface Collection { info: { schema: string }; auth: { type: string; oauth2: { key: string; value: string }[] }; item: Item[] }

const committed = readFileSync(COLLECTION_FILE, 'utf8');
const collection = JSON.parse(committed) as Collection;
const requests = collection.item.flatMap((folder) => folder.item ?? []);

test('the committed collection is the generator\'s output (regenerate: npm run collection)', async () => {
  assert.ok(committed === (await generateCollection()), 'docs/wfs.postman_collection.json is out of date: run `npm run collection` and commit it');
});

test('it is a Postman v2.1 collection with the authorization-code flow (PKCE S256, scope all) at collection level', () => {
  assert.equal(collection.info.schema, 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
  assert.equal(collection.auth.type, 'oauth2');
  const settings = Object.fromEntries(collection.auth.oauth2.map(({ key, value }) => [key, value]));
  assert.equal(settings.grant_type, 'authorization_code_with_pkce');
  assert.equal(settings.authUrl, '{{baseUrl}}/oauth/authorize');
  assert.equal(settings.accessTokenUrl, '{{baseUrl}}/api/v1/iam/oauth/token');
  assert.equal(settings.challengeAlgorithm, 'S256');
  assert.equal(settings.scope, 'all');
});

test('secured operations inherit the OAuth token, public ones send none; no operator operation', () => {
  const find = (raw: string, method = 'GET') => requests.find((item) => item.request?.url.raw === raw && item.request.method === method);
  assert.equal(find('{{baseUrl}}/api/v1/company/configuration')?.request?.auth, undefined);
  assert.equal(find('{{baseUrl}}/api/v1/timeclock/events', 'POST')?.request?.auth, undefined);
  assert.equal(find('{{baseUrl}}/api/v1/iam/.well-known/jwks.json')?.request?.auth?.type, 'noauth');
  assert.ok(find('{{baseUrl}}/api/v1/company/webhooks/:id'), 'path parameters as Postman variables');
  assert.ok(!requests.some((item) => item.request?.url.raw.includes('/api/v1/admin/')), 'operator API left out');
  assert.ok(requests.length >= 30, `${requests.length} requests`);
});
