// The service ships with V8 flags (docs/deployment.md, "Runtime flags"): `npm start` and the container
// image must start it with the same ones, and the bench measures it with them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startFlags } from '../../bench/processes.ts';

const root = new URL('../../', import.meta.url);

test('npm start and the image\'s CMD start the server with the same node flags, which the bench uses', () => {
  const flags = startFlags();
  assert.deepEqual(flags, ['--max-semi-space-size=16']);
  const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(new URL('Dockerfile', root), 'utf8'))?.[1];
  assert.ok(cmd, 'the Dockerfile has an exec-form CMD');
  assert.deepEqual(JSON.parse(cmd) as string[], ['node', ...flags, 'src/app/server.ts']);
});
