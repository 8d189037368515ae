// The OpenAPI document's `webhooks` section (OpenAPI 3.1): one entry per message type an endpoint
// receives, each the POST the service makes to the endpoint's URL, with the Standard Webhooks headers.
import { CHANGE_TYPES, TEST_MESSAGE_TYPE } from './schemas.ts';

type Json = Record<string, unknown>;

const HEADERS = [
  { name: 'webhook-id', description: 'The message id: the change id, the same on every attempt and in a replay. Deduplicate on it.' },
  { name: 'webhook-timestamp', description: 'Seconds since 1970 when this attempt was signed; refuse messages more than 5 minutes away from your clock.' },
  { name: 'webhook-signature', description: '`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the secret\'s bytes; during a rotation two signatures, space separated. Verify with a Standard Webhooks library.' },
].map(({ name, description }) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

const RESPONSES = {
  '2XX': { description: 'Received. Any 2xx within WEBHOOK_TIMEOUT_MS (15 s) is success.' },
  '410': { description: 'Gone: the endpoint is disabled at once.' },
  '429': { description: 'Retried later; a longer `Retry-After` replaces the schedule\'s wait (503 likewise).' },
  default: { description: 'Any other answer (a redirect too), or none in time, is retried on the schedule.' },
};

function changeSchema(type: string): Json {
  const resourceType = type.slice(0, type.indexOf('.'));
  return {
    type: 'object',
    required: ['seq', 'id', 'type', 'resourceType', 'resourceId', 'occurredAt', 'deleted', 'data'],
    properties: {
      seq: { type: 'integer', description: 'Grows with commit order within the company (gaps allowed).' },
      id: { type: 'string', description: 'The change id, equal to the webhook-id header.' },
      type: { const: type },
      resourceType: { const: resourceType },
      resourceId: { type: 'string' },
      occurredAt: { type: 'string', format: 'date-time' },
      deleted: { type: 'boolean' },
      data: { description: type.endsWith('.deleted') ? 'null: a tombstone.' : `The ${resourceType} as its collection shows it right after the change.`, ...(type.endsWith('.deleted') ? { type: 'null' } : {}) },
    },
  };
}

function message(type: string, summary: string, data: Json): Json {
  return {
    post: {
      summary,
      operationId: `webhook_${type.replace('.', '_')}`,
      tags: ['webhooks'],
      // Authenticated by its signature, not by a credential of the receiver's.
      security: [],
      parameters: HEADERS,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'object', required: ['type', 'timestamp', 'data'], properties: { type: { const: type }, timestamp: { type: 'string', format: 'date-time' }, data } },
          },
        },
      },
      responses: RESPONSES,
    },
  };
}

/** Every message type, for the document's `webhooks`. */
export function webhookMessagesDocument(): Json {
  const changes = Object.fromEntries(CHANGE_TYPES.map((type) => [type, message(type, `A change: ${type}`, changeSchema(type))]));
  const test = message(TEST_MESSAGE_TYPE, 'A test message (POST /api/v1/company/webhooks/{id}/test)', {
    type: 'object',
    properties: { endpointId: { type: 'string' }, message: { type: 'string' } },
  });
  return { ...changes, [TEST_MESSAGE_TYPE]: test };
}
