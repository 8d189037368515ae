// The error values every call site shares (src/platform/errors.ts): one 429 for attempts refused
// while a penalty or limit is in force, the same on the login page, the SSO callback and the console.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProblemError, tooManyAttempts } from '../../src/platform/errors.ts';

test('tooManyAttempts is a 429 too_many_requests with Retry-After, naming the attempts and the wait', () => {
  const one = tooManyAttempts(1, 'sign-in attempts');
  assert.ok(one instanceof ProblemError);
  assert.equal(one.status, 429);
  assert.equal(one.code, 'too_many_requests');
  assert.deepEqual(one.headers, { 'Retry-After': '1' });
  assert.equal(one.message, 'Too many sign-in attempts. Try again in 1 second.');
  assert.equal(tooManyAttempts(900, 'failed attempts').message, 'Too many failed attempts. Try again in 900 seconds.');
});
