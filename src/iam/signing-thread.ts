// ES256 signatures on a worker thread of their own, the signatures asked for in one turn of the
// event loop sent in one message and answered in one. WebCrypto (or node:crypto's async sign)
// hands each signature to libuv's pool instead: a job, a thread woken and a completion per token,
// which on this machine cost more than the signature itself (docs/benchmarks.md, the token row).
// The EC arithmetic stays off the event loop, as with the pool.
import type { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** One batch as the thread receives it: the keys it has not seen yet, then the inputs to sign. */
export interface SigningRequest {
  id: number;
  keys: Array<{ kid: string; key: KeyObject }>;
  inputs: Array<{ kid: string; input: string }>;
}

/** The thread's answer: the base64url signatures in the order asked, or why none could be made. */
export type SigningAnswer = { id: number; signatures: string[] } | { id: number; error: string };

interface Waiting {
  kid: string;
  key: KeyObject;
  input: string;
  resolve(signature: string): void;
  reject(error: unknown): void;
  /** Lost once already to a thread that died: lost again, it fails. */
  retried?: boolean;
}

export class SigningThread {
  readonly #workerUrl: URL;
  #worker: Worker | undefined;
  /** Keys by kid that the current worker holds. */
  #sentKeys = new Map<string, KeyObject>();
  #queue: Waiting[] = [];
  #inFlight = new Map<number, Waiting[]>();
  #nextId = 1;

  /** `workerUrl`: the thread's script (signing-worker.ts; a test may wrap it). */
  constructor(workerUrl = new URL('./signing-worker.ts', import.meta.url)) {
    this.#workerUrl = workerUrl;
  }

  /** The base64url ES256 (IEEE P1363) signature of `input` with `key`. */
  sign(kid: string, key: KeyObject, input: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ kid, key, input, resolve, reject });
      // The signatures asked for in this turn go together, at its end.
      if (this.#queue.length === 1) setImmediate(() => this.#send());
    });
  }

  #send(): void {
    const batch = this.#queue;
    this.#queue = [];
    this.#post(batch);
  }

  #post(batch: Waiting[]): void {
    const worker = this.#thread();
    const keys: SigningRequest['keys'] = [];
    for (const { kid, key } of batch) {
      if (this.#sentKeys.get(kid) === key) continue;
      this.#sentKeys.set(kid, key);
      keys.push({ kid, key });
    }
    const id = this.#nextId++;
    this.#inFlight.set(id, batch);
    // Alive while signatures are awaited (a CLI awaiting one must not exit), never otherwise.
    if (this.#inFlight.size === 1) worker.ref();
    const request: SigningRequest = { id, keys, inputs: batch.map(({ kid, input }) => ({ kid, input })) };
    worker.postMessage(request);
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.#workerUrl);
    worker.unref();
    worker.on('message', (answer: SigningAnswer) => this.#settle(answer));
    worker.on('error', (error) => this.#fail(worker, error));
    worker.on('exit', (code) => this.#fail(worker, new Error(`The signing thread exited (${code}).`)));
    this.#worker = worker;
    this.#sentKeys = new Map();
    return worker;
  }

  #settle(answer: SigningAnswer): void {
    const batch = this.#inFlight.get(answer.id);
    if (!batch) return;
    this.#inFlight.delete(answer.id);
    if (this.#inFlight.size === 0) this.#worker?.unref();
    if ('error' in answer) {
      for (const waiting of batch) waiting.reject(new Error(answer.error));
      return;
    }
    batch.forEach((waiting, i) => waiting.resolve(answer.signatures[i] ?? ''));
  }

  /**
   * The thread died: each batch it held is signed again, as it was, on a new thread; a signature
   * lost to a second death fails (a batch that kills every thread must not restart them forever).
   */
  #fail(worker: Worker, error: unknown): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const lost = [...this.#inFlight.values()];
    this.#inFlight.clear();
    for (const batch of lost) {
      for (const waiting of batch) if (waiting.retried) waiting.reject(error);
      const again = batch.filter((waiting) => !waiting.retried);
      for (const waiting of again) waiting.retried = true;
      if (again.length > 0) this.#post(again);
    }
  }
}

/** The process's signing thread, started by the first signature. */
export const signingThread = new SigningThread();
