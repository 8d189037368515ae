// A webhook receiver: verifies each message with the `standardwebhooks` package (as any Standard
// Webhooks library would), skips ids it has already handled (delivery is at least once), and answers
// 204 quickly, doing the work afterwards. Register its URL with POST /api/v1/company/webhooks and
// give it the secret that answer shows once:
//
//   WFS_WEBHOOK_SECRET=whsec_… npx node examples/webhook-receiver.ts [--port 4000]
//
// In production it sits behind https on a public address (the service sends nowhere else); for a
// local try, the service needs WEBHOOK_ALLOW_INSECURE=1 to reach http://127.0.0.1:4000/.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4000' } } });
const secret = process.env.WFS_WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  process.stderr.write('Set WFS_WEBHOOK_SECRET to the endpoint\'s whsec_… secret.\n');
  process.exit(2);
}
const webhook = new Webhook(secret);

interface Message {
  type: string;
  timestamp: string;
  data: { seq?: number; resourceType?: string; resourceId?: string; deleted?: boolean; data?: unknown };
}

/** Ids already handled. A real receiver keeps them in its database, in the transaction of the work. */
const handled = new Set<string>();

function handle(id: string, message: Message): void {
  if (handled.has(id)) return;
  handled.add(id);
  const { seq, resourceType, resourceId, deleted } = message.data;
  process.stdout.write(`${message.type} seq=${seq ?? '-'} ${resourceType ?? ''} ${resourceId ?? ''}${deleted ? ' (deleted)' : ''}\n`);
}

const MAX_BODY = 5 * 1024 * 1024;

createServer((request, response) => {
  if (request.method !== 'POST') {
    response.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY) request.destroy();
    else chunks.push(chunk);
  });
  request.on('end', () => {
    // The signature covers the exact bytes: verify the raw body, parse only what verified.
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = { 'webhook-id': String(request.headers['webhook-id'] ?? ''), 'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''), 'webhook-signature': String(request.headers['webhook-signature'] ?? '') };
    let message: Message;
    try {
      message = webhook.verify(body, headers) as Message;
    } catch (error) {
      // 400, not 410: a 410 would disable the endpoint.
      response.writeHead(error instanceof WebhookVerificationError ? 401 : 400).end();
      return;
    }
    response.writeHead(204).end();
    handle(headers['webhook-id'], message);
  });
}).listen(Number(values.port), () => process.stdout.write(`Receiving webhooks on http://127.0.0.1:${values.port}/\n`));
