// A real webhook receiver for tests: node:http on 127.0.0.1 (reached with WEBHOOK_ALLOW_INSECURE=1),
// recording every request as it arrived and answering what the test scripts. It verifies nothing
// itself: tests verify with the `standardwebhooks` package, as integrators' receivers do.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../multi-instance/client.ts';

export interface ReceivedMessage {
  id: string;
  timestamp: string;
  signature: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body: `{type, timestamp, data}`. */
  json: { type: string; timestamp: string; data: Record<string, unknown> };
  /** The status this receiver answered. */
  answered: number;
  /** When the request arrived (its body read) and when its answer was sent (Date.now(); null until sent). */
  arrivedAt: number;
  answeredAt: number | null;
}

/** How the receiver answers the request numbered `index` (0-based): a status, headers, and a delay. */
export type Script = (index: number, message: ReceivedMessage) => { status: number; headers?: Record<string, string>; delayMs?: number };

export interface Receiver {
  url: string;
  received: ReceivedMessage[];
  /** Messages answered 2xx, in arrival order. */
  accepted(): ReceivedMessage[];
  answer(script: Script): void;
  /** Waits until `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
  close(): Promise<void>;
}

const ok: Script = () => ({ status: 204 });

export async function startReceiver(script: Script = ok): Promise<Receiver> {
  let current = script;
  const received: ReceivedMessage[] = [];
  const server: Server = createServer((request, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(request.headers[name] ?? '');
      const message: ReceivedMessage = { id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature'), headers: request.headers, body, json: JSON.parse(body) as ReceivedMessage['json'], answered: 0, arrivedAt: Date.now(), answeredAt: null };
      const { status, headers = {}, delayMs = 0 } = current(received.length, message);
      message.answered = status;
      received.push(message);
      const send = () => {
        message.answeredAt = Date.now();
        response.writeHead(status, headers).end();
      };
      if (delayMs === 0) send();
      else setTimeout(send, delayMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    accepted: () => received.filter((message) => message.answered >= 200 && message.answered < 300),
    answer: (next) => {
      current = next;
    },
    async waitFor(count, timeoutMs = 10_000) {
      await eventually(`${count} webhook requests (got ${received.length})`, timeoutMs, async () => received.length >= count, 20);
      return received;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A receiver factory for the calling suite: each receiver it starts is closed after the suite. */
export function useReceivers(): (script?: Script) => Promise<Receiver> {
  const started: Receiver[] = [];
  after(async () => {
    for (const receiver of started) await receiver.close();
  });
  return async (script) => {
    const receiver = await startReceiver(script);
    started.push(receiver);
    return receiver;
  };
}

/** Verifies a received message with the `standardwebhooks` package and answers its parsed body. */
export function verified(secret: string, message: ReceivedMessage): unknown {
  return new Webhook(secret).verify(message.body, { 'webhook-id': message.id, 'webhook-timestamp': message.timestamp, 'webhook-signature': message.signature });
}

export function assertVerifies(secret: string, message: ReceivedMessage): void {
  assert.doesNotThrow(() => verified(secret, message), `message ${message.id} verifies with ${secret.slice(0, 12)}…`);
}
