// Calls of the webhook endpoints API as an integrator makes them, for the webhook suites.
import assert from 'node:assert/strict';
import { getJson, postJson, type JsonResponse } from '../support/http.ts';
import { fetchAny } from '../support/in-process.ts';

export const WEBHOOKS = '/api/v1/company/webhooks';

export interface EndpointBody {
  id: string;
  url: string;
  types: string[] | null;
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

export interface DeliveryBody {
  id: string;
  messageId: string;
  seq: number | null;
  type: string;
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextAttemptAt: string | null;
}

export async function createEndpoint(baseUrl: string, token: string, body: Record<string, unknown>): Promise<EndpointBody & { secret: string }> {
  const response = await postJson<EndpointBody & { secret: string }>(`${baseUrl}${WEBHOOKS}`, token, body);
  assert.equal(response.status, 201, response.text);
  return response.body;
}

export async function patchEndpoint(baseUrl: string, token: string, id: string, body: Record<string, unknown>): Promise<JsonResponse<EndpointBody>> {
  const response = await fetchAny(`${baseUrl}${WEBHOOKS}/${id}`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as EndpointBody, headers: response.headers, text };
}

export async function sendTest(baseUrl: string, token: string, id: string): Promise<string> {
  const response = await fetchAny(`${baseUrl}${WEBHOOKS}/${id}/test`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  assert.equal(response.status, 202, text);
  return (JSON.parse(text) as { messageId: string }).messageId;
}

export async function deliveries(baseUrl: string, token: string, id: string): Promise<DeliveryBody[]> {
  const response = await getJson<{ data: DeliveryBody[] }>(`${baseUrl}${WEBHOOKS}/${id}/deliveries?limit=1000`, token);
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

export async function readEndpoint(baseUrl: string, token: string, id: string): Promise<EndpointBody> {
  const response = await getJson<EndpointBody>(`${baseUrl}${WEBHOOKS}/${id}`, token);
  assert.equal(response.status, 200, response.text);
  return response.body;
}
