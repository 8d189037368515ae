// The signing thread's script (src/iam/signing-worker.ts) with a way to die, for
// signing-thread.test.ts: a batch with the input `die-once:<file>` ends the thread the first time
// (it writes <file>, so the next thread lives), one with `die-always` every time. Every other batch
// is signed by the real script.
import { existsSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { SigningRequest } from '../../src/iam/signing-thread.ts';

parentPort?.on('message', (request: SigningRequest) => {
  for (const { input } of request.inputs) {
    const marker = /^die-once:(.+)$/.exec(input)?.[1];
    if (input === 'die-always' || (marker && !existsSync(marker))) {
      if (marker) writeFileSync(marker, '');
      process.exit(1);
    }
  }
});
await import('../../src/iam/signing-worker.ts');
