// The signing thread (src/iam/signing-thread.ts): the signatures of one turn go in one batch, each
// comes back for its own input and key, a batch it cannot sign fails without stopping the next, a
// thread that dies has what it held signed again on a new one (once), and the thread keeps a process
// alive only while a signature is awaited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createSecretKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { SigningThread, signingThread } from '../../src/iam/signing-thread.ts';

const P256 = { namedCurve: 'P-256' } as const;

test('signatures asked for together each verify for their own input and key', async () => {
  const pairs = [generateKeyPairSync('ec', P256), generateKeyPairSync('ec', P256)];
  const asked = Array.from({ length: 40 }, (_, i) => ({ kid: `key-${i % 2}`, pair: pairs[i % 2]!, input: `header.payload-${i}` }));
  const signatures = await Promise.all(asked.map(({ kid, pair, input }) => signingThread.sign(kid, pair.privateKey, input)));
  asked.forEach(({ pair, input }, i) => {
    const signature = Buffer.from(signatures[i] ?? '', 'base64url');
    assert.equal(signature.length, 64, 'ES256 in IEEE P1363 form: r and s, 32 bytes each');
    assert.ok(verify('sha256', Buffer.from(input), { key: pair.publicKey, dsaEncoding: 'ieee-p1363' }, signature), `signature ${i} verifies`);
    const other = asked[(i + 1) % asked.length]!;
    assert.equal(verify('sha256', Buffer.from(other.input), { key: pair.publicKey, dsaEncoding: 'ieee-p1363' }, signature), false, 'and not for another input');
  });
});

test('a key replaced under the same kid signs from then on', async () => {
  const first = generateKeyPairSync('ec', P256);
  const second = generateKeyPairSync('ec', P256);
  await signingThread.sign('rotated', first.privateKey, 'before');
  const signature = Buffer.from(await signingThread.sign('rotated', second.privateKey, 'after'), 'base64url');
  assert.ok(verify('sha256', Buffer.from('after'), { key: second.publicKey, dsaEncoding: 'ieee-p1363' }, signature));
});

test('a batch the thread cannot sign is refused, and the next one is signed', async () => {
  await assert.rejects(signingThread.sign('not-an-ec-key', createSecretKey(randomBytes(32)), 'input'));
  const pair = generateKeyPairSync('ec', P256);
  const signature = Buffer.from(await signingThread.sign('good', pair.privateKey, 'input'), 'base64url');
  assert.ok(verify('sha256', Buffer.from('input'), { key: pair.publicKey, dsaEncoding: 'ieee-p1363' }, signature));
});

const dying = () => new SigningThread(new URL('./dying-signing-worker.ts', import.meta.url));

const verifies = (pair: { publicKey: KeyObject }, input: string, signature: string) =>
  verify('sha256', Buffer.from(input), { key: pair.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));

test('the signatures a thread held when it died are signed again on a new thread', async () => {
  const thread = dying();
  const pair = generateKeyPairSync('ec', P256);
  const directory = mkdtempSync(join(tmpdir(), 'wfs-signing-'));
  try {
    // Two batches in flight when the thread dies: the one that kills it, and one sent after it.
    const inputs = [`die-once:${join(directory, 'died')}`, 'header.payload'];
    const first = inputs.map((input) => thread.sign('k', pair.privateKey, input));
    await new Promise((resolve) => setImmediate(resolve));
    const later = thread.sign('k', pair.privateKey, 'later');
    const signatures = await Promise.all(first);
    inputs.forEach((input, i) => assert.ok(verifies(pair, input, signatures[i] ?? ''), `${input} is signed`));
    assert.ok(verifies(pair, 'later', await later));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a batch that kills the new thread too fails its signatures, and the next batch is signed', async () => {
  const thread = dying();
  const pair = generateKeyPairSync('ec', P256);
  await assert.rejects(thread.sign('k', pair.privateKey, 'die-always'), /exited/);
  assert.ok(verifies(pair, 'input', await thread.sign('k', pair.privateKey, 'input')));
});

test('a process that awaits a signature waits for it, and then exits', async () => {
  const module = new URL('../../src/iam/signing-thread.ts', import.meta.url).href;
  const script = `
    import { generateKeyPairSync } from 'node:crypto';
    import { signingThread } from ${JSON.stringify(module)};
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    process.stdout.write(await signingThread.sign('k', privateKey, 'input'));`;
  const directory = mkdtempSync(join(tmpdir(), 'wfs-signing-'));
  try {
    const file = join(directory, 'sign-once.mjs');
    writeFileSync(file, script);
    // Killed after 20 s: a thread that kept the process alive fails the test.
    const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 20_000 });
    assert.equal(Buffer.from(stdout, 'base64url').length, 64, 'the signature was printed before the exit');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
