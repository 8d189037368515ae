// The worker behind signing-thread.ts: signs each batch synchronously, in the order asked.
import { sign, type KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { SigningAnswer, SigningRequest } from './signing-thread.ts';

const keys = new Map<string, KeyObject>();

function answer(request: SigningRequest): SigningAnswer {
  try {
    for (const { kid, key } of request.keys) keys.set(kid, key);
    const signatures = request.inputs.map(({ kid, input }) => {
      const key = keys.get(kid);
      if (!key) throw new Error(`The signing thread has no key ${kid}.`);
      return sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    });
    return { id: request.id, signatures };
  } catch (error) {
    return { id: request.id, error: (error as Error).message };
  }
}

parentPort?.on('message', (request: SigningRequest) => parentPort?.postMessage(answer(request)));
