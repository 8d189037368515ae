import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SCHEMA_FILE, generateSchema } from '../../packages/client/generate.ts';

test('packages/client/src/schema.ts matches the OpenAPI document (regenerate: npx node packages/client/generate.ts)', async () => {
  const committed = readFileSync(SCHEMA_FILE, 'utf8');
  const current = await generateSchema();
  assert.ok(committed === current, 'schema.ts is out of date: run `npx node packages/client/generate.ts` and commit it');
  assert.match(committed, /"\/api\/v1\/timeclock\/events": \{/);
});
