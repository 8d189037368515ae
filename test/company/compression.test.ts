import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { useCompanyServer } from '../support/company.ts';
import { baseDocument, dayFromToday, shift, user } from './fixtures.ts';

function companyWithAFullDay() {
  const doc = baseDocument();
  doc.users.push(user('ann'));
  for (let i = 0; i < 30; i++) doc.shifts.push(shift(`s${i}`, dayFromToday(0), { userRef: i % 2 ? 'ann' : null, start: '08:00', end: '16:00' }));
  return doc;
}

const fixture = useCompanyServer({ data: companyWithAFullDay(), inProcess: true });

interface RawResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

/** A GET that leaves the body as sent (fetch would decode it). */
async function rawGet(path: string, headers: Record<string, string>): Promise<RawResponse> {
  const answer = await fixture.server.app.inject({ url: `/api/v1${path}`, headers: { authorization: `Bearer ${fixture.token}`, ...headers } });
  return { status: answer.statusCode, headers: answer.headers, body: answer.rawPayload };
}

test('the feed is sent compressed to a client that accepts it, and decodes to the same document', async () => {
  const plain = await rawGet('/feeds/timetable', {});
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.headers.vary, 'accept-encoding');
  const br = await rawGet('/feeds/timetable', { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(brotliDecompressSync(br.body).toString(), plain.body.toString());
  assert.ok(br.body.length < plain.body.length / 4, `${br.body.length} of ${plain.body.length} bytes`);
  const gzip = await rawGet('/feeds/timetable', { 'accept-encoding': 'gzip' });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gzip.body).toString(), plain.body.toString());
  assert.equal(Number(gzip.headers['content-length']), gzip.body.length);
});

test('each representation has its own ETag, and any of them revalidates the same body with a 304', async () => {
  const plain = await rawGet('/feeds/timetable', {});
  const br = await rawGet('/feeds/timetable', { 'accept-encoding': 'br' });
  const plainTag = String(plain.headers.etag);
  assert.equal(br.headers.etag, `${plainTag.slice(0, -1)}-br"`);
  for (const [tag, encoding] of [[plainTag, 'br'], [String(br.headers.etag), 'br'], [String(br.headers.etag), 'identity']]) {
    const again = await rawGet('/feeds/timetable', { 'accept-encoding': encoding ?? '', 'if-none-match': tag ?? '' });
    assert.equal(again.status, 304, `${tag} with ${encoding}`);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers['content-encoding'], undefined);
  }
  const other = await rawGet('/feeds/timetable', { 'accept-encoding': 'br', 'if-none-match': `"${'x'.repeat(27)}-br"` });
  assert.equal(other.status, 200);
});

test('a small answer is sent as it is, whatever the client accepts', async () => {
  const response = await rawGet('/company/contracts', { 'accept-encoding': 'br, gzip' });
  assert.equal(response.status, 200);
  assert.ok(response.body.length < 1024);
  assert.equal(response.headers['content-encoding'], undefined);
});
