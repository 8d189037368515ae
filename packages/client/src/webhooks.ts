// Verifies a webhook message of the service (Standard Webhooks, CONTRACT §7) in any runtime with Web
// Crypto (Node 20+, browsers, workers): the `webhook-signature` must hold a `v1,` HMAC-SHA256 of
// `{webhook-id}.{webhook-timestamp}.{body}` under the secret (one of its signatures: during a rotation
// there are two), and the timestamp must lie within `toleranceSeconds` of the receiver's clock.

export interface WebhookHeaders {
  'webhook-id'?: string | null;
  'webhook-timestamp'?: string | null;
  'webhook-signature'?: string | null;
}

export interface WebhookMessage {
  type: string;
  timestamp: string;
  data: unknown;
}

export interface VerifyOptions {
  /** How far the timestamp may be from now, either way (default 300 s, as Standard Webhooks says). */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests). */
  now?: number;
}

export class WebhookVerificationError extends Error {}

const encoder = new TextEncoder();

function bytesOf(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function header(headers: WebhookHeaders | Headers | Record<string, string | string[] | undefined>, name: keyof WebhookHeaders): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : '';
}

/**
 * The parsed message when `body` (the raw request body, as received) carries a valid signature of
 * `secret` (`whsec_…`) and a fresh timestamp; throws WebhookVerificationError otherwise.
 */
export async function verifyWebhook(secret: string, headers: WebhookHeaders | Headers | Record<string, string | string[] | undefined>, body: string, options: VerifyOptions = {}): Promise<WebhookMessage> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !/^\d+$/.test(timestamp) || !signatures) throw new WebhookVerificationError('missing or malformed webhook headers');
  const now = (options.now ?? Date.now()) / 1000;
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('the message timestamp is too far from now');
  let key: Awaited<ReturnType<typeof crypto.subtle.importKey>>;
  try {
    key = await crypto.subtle.importKey('raw', bytesOf(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  } catch {
    throw new WebhookVerificationError('the secret is not a whsec_ secret');
  }
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    let given: Uint8Array<ArrayBuffer>;
    try {
      given = bytesOf(signature);
    } catch {
      continue;
    }
    // crypto.subtle.verify compares in constant time.
    if (await crypto.subtle.verify('HMAC', key, given, signed)) return JSON.parse(body) as WebhookMessage;
  }
  throw new WebhookVerificationError('no signature matches');
}
