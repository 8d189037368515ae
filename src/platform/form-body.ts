// How every form body (application/x-www-form-urlencoded: the OAuth endpoints, the login page, the
// console) is read: its bytes must be UTF-8, like a JSON body's, else 400 malformed_body in the route's
// shape — decoding them as they came turned a Latin-1 "é" of an old client into U+FFFD, and a password
// so typed into a silent "wrong secret". Then parsed by parseUrlEncoded, which remembers escapes that
// decode to no text (percent-decoding.ts).
import type { FastifyInstance } from 'fastify';
import { utf8Text } from './json-body.ts';
import { parseUrlEncoded } from './percent-decoding.ts';

/** Every form body of `app` (and of scopes that keep its parsers) read as UTF-8 and parsed by parseUrlEncoded. */
export function readFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseUrlEncoded(utf8Text(body)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
