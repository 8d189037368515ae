// The query and form parser keeps fast-querystring's results and remembers an escape that does not
// decode; the path rewrite routes such a path with U+FFFD in its place and leaves everything else as
// it came. How a request holding one is answered: unstorable-text.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { parse } from 'fast-querystring';
import { parseUrlEncoded, routableUrl, undecodableIn, undecodablePath } from '../../src/platform/percent-decoding.ts';

const request = (url: string) => ({ url }) as IncomingMessage;

test('the parser gives fast-querystring\'s result for any text, an empty one an empty object', () => {
  assert.deepEqual(parseUrlEncoded(''), {});
  const part = fc.constantFrom('a', 'b', '=', '&', '+', '%', '%2', '%41', '%C3%A9', '%ED%A0%80', '%F0', '%ZZ', '%00', '%26', '%3D', 'é');
  fc.assert(fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
    const text = parts.join('');
    assert.deepEqual({ ...parseUrlEncoded(text) }, { ...parse(text) });
  }));
});

test('an escape that decodes to no UTF-8 text is remembered with its field; a name holding one has no field', () => {
  assert.deepEqual(undecodableIn(parseUrlEncoded('a=1&user+id=x%ED%A0%80&b=%F0')), { field: 'user id', reason: undecodableIn(parseUrlEncoded('x=%C0%80'))?.reason });
  assert.match(undecodableIn(parseUrlEncoded('x=%C0%80'))?.reason ?? '', /not UTF-8 text/);
  assert.match(undecodableIn(parseUrlEncoded('x=50%'))?.reason ?? '', /does not start a percent-encoded byte/);
  assert.equal(undecodableIn(parseUrlEncoded('k%ZZ=1'))?.field, undefined);
  assert.ok(undecodableIn(parseUrlEncoded('flag%F0')));
  for (const text of ['a=%F0%9F%98%80', 'a=%25ED%25A0%2580', 'a=%00', 'a=b+c', 'a']) assert.equal(undecodableIn(parseUrlEncoded(text)), undefined, text);
});

test('a path whose escapes do not decode is routed with U+FFFD in their place, its query untouched; any other URL is returned as it came', () => {
  for (const url of ['/api/v1/company/users?limit=5', '/a/%41%C3%A9/b?x=%F0', '/a%2Fb', '/a?x=%ED%A0%80#%ZZ']) {
    const sent = request(url);
    assert.equal(routableUrl(sent), url);
    assert.equal(undecodablePath(sent), undefined);
  }
  const sent = request('/w/a%ED%A0%80b/%41%F0/50%/ok%20?q=%F0');
  assert.equal(routableUrl(sent), '/w/a%EF%BF%BDb/%EF%BF%BD/50%EF%BF%BD/ok%20?q=%F0');
  assert.match(undecodablePath(sent) ?? '', /does not start a percent-encoded byte/);
});
