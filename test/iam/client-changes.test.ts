// A client_credentials request whose client keeps changing under it: tried on the kept copy, then on
// fresh reads; a row that changed at every read gets 503 with Retry-After, never a 500
// (src/iam/client-changes.ts). The real changes between read and insert are in client-cache.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthError } from '../../src/platform/errors.ts';
import { ClientChanged, FRESH_READS, despiteClientChanges } from '../../src/iam/client-changes.ts';

function changingTimes(changes: number): { attempt: (fresh: boolean) => Promise<string>; tries: boolean[]; forgotten: string[] } {
  const tries: boolean[] = [];
  const forgotten: string[] = [];
  const attempt = async (fresh: boolean) => {
    tries.push(fresh);
    if (tries.length <= changes) throw new ClientChanged('cl_acme');
    return 'token';
  };
  return { attempt, tries, forgotten };
}

test('an unchanged client is served on the kept copy, with no fresh read', async () => {
  const run = changingTimes(0);
  assert.equal(await despiteClientChanges(run.attempt, (id) => run.forgotten.push(id)), 'token');
  assert.deepEqual([run.tries, run.forgotten], [[false], []]);
});

test('a client that changed twice (once more after the fresh read) is read fresh again and served', async () => {
  const run = changingTimes(2);
  assert.equal(await despiteClientChanges(run.attempt, (id) => run.forgotten.push(id)), 'token');
  assert.deepEqual([run.tries, run.forgotten], [[false, true, true], ['cl_acme', 'cl_acme']]);
});

test('a client that changes at every read gets 503 server_error with Retry-After: 1 after the fresh reads', async () => {
  const run = changingTimes(Number.POSITIVE_INFINITY);
  await assert.rejects(despiteClientChanges(run.attempt, (id) => run.forgotten.push(id)), (error: unknown) => {
    assert.ok(error instanceof OAuthError);
    assert.deepEqual([error.status, error.error, error.headers], [503, 'server_error', { 'Retry-After': '1' }]);
    return true;
  });
  assert.equal(run.tries.length, 1 + FRESH_READS);
});

test('any other failure passes through at once, untried again', async () => {
  const tries: boolean[] = [];
  const refused = new OAuthError(401, 'invalid_client', 'Client authentication failed.');
  await assert.rejects(despiteClientChanges(async (fresh) => { tries.push(fresh); throw refused; }, () => assert.fail('nothing to forget')), refused);
  assert.deepEqual(tries, [false]);
});
